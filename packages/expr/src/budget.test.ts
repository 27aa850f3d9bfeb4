// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation
import { describe, expect, it } from "vitest";
import { evalBudget, jsonSize, jsonTextSize } from "./budget.js";
import { ExprLimitError } from "./errors.js";
import { evaluate } from "./evaluate.js";
import { type Json, type LosslessNumber, parseJson } from "./json.js";
import { parseExpression } from "./parser.js";
import { compileShape, evaluateShape } from "./shape.js";
import { evaluateTemplate, parseTemplate } from "./template.js";

const limitOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (e) {
    if (e instanceof ExprLimitError) return `${e.code} ${e.limit}: ${e.message}`;
    throw e;
  }
};

// Each case ran for minutes or ran the process out of memory before the budget (issue 12):
// these tests finish because the budget stops the work as it proceeds, not after.
describe("the evaluation budget", () => {
  const xs = Array.from({ length: 900 }, (_, i) => i);

  it("stops a nested map over a 900-element input (the out-of-memory case) with a limit error", () => {
    const expr = parseExpression("map(input.xs, a => map(input.xs, b => map(input.xs, c => [a, b, c])))");
    expect(limitOf(() => evaluate(expr, { input: { xs } }))).toMatch(/^engine\.limit (steps|value_size): /);
  });

  it("stops a map whose result grows past the value size limit, at the element where it does", () => {
    const expr = parseExpression('map(input.xs, a => "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")');
    expect(limitOf(() => evaluate(expr, { input: { xs } }, evalBudget({ maxValueBytes: 10_000 })))).toBe(
      "engine.limit value_size: the result of map() grew past 10000 characters as JSON (the value size limit) at element 185",
    );
  });

  it("refuses a string concatenation past the value size limit before building it", () => {
    const big = "x".repeat(600_000);
    const expr = parseExpression("input.s + input.s");
    expect(evaluate(expr, { input: { s: big } }, evalBudget({ maxValueBytes: 2_000_000 }))).toHaveLength(1_200_000);
    expect(limitOf(() => evaluate(expr, { input: { s: big } }, evalBudget({ maxValueBytes: 1_000_000 })))).toBe(
      'engine.limit value_size: the string built by "+" would be 1200000 characters long, more than the value size limit of 1000000',
    );
  });

  it("counts steps across every template of one shape", () => {
    const shape = compileShape({ a: "$: map(input.xs, x => x)", b: "$: map(input.xs, x => x)" });
    const scope = { input: { xs } };
    expect(evaluateShape(shape, scope, evalBudget({ maxSteps: 2000 }))).toEqual({ a: xs, b: xs });
    expect(limitOf(() => evaluateShape(shape, scope, evalBudget({ maxSteps: 1500 })))).toBe(
      "engine.limit steps: b: the evaluation took more than 1500 steps (the expression step budget)",
    );
  });

  it("renders a huge number in exponent form in join and interpolation, in no time", () => {
    const scope = { input: parseJson('{"n": 1e100000000, "m": 1e40000000}') as { [k: string]: LosslessNumber } };
    expect(evaluate(parseExpression('len(join([input.n], ""))'), scope)).toBe("1e+100000000".length);
    expect(evaluateTemplate(parseTemplate("qty=${input.m}"), scope)).toBe("qty=1e+40000000");
  });

  it("refuses an interpolated string past the value size limit", () => {
    const template = parseTemplate("${input.s}${input.s}");
    const scope = { input: { s: "y".repeat(600) } };
    expect(limitOf(() => evaluateTemplate(template, scope, evalBudget({ maxValueBytes: 1000 })))).toBe(
      "engine.limit value_size: the interpolated string would be 1200 characters long, more than the value size limit of 1000",
    );
  });

  it("refuses a join whose parts pass the value size limit, before joining them", () => {
    const scope = { input: { xs: Array.from({ length: 100 }, () => "z".repeat(100)) } };
    expect(
      limitOf(() => evaluate(parseExpression('join(input.xs, ",")'), scope, evalBudget({ maxValueBytes: 5000 }))),
    ).toMatch(/^engine\.limit value_size: the string built by join\(\) would be \d+ characters long/);
  });
});

// Audit, session 8 (docs/limits.md): each of these held the event loop for seconds within the
// step budget, because the builtin or operator did work proportional to its arguments' size
// while it counted one step. Work on a value is now charged one step per STEP_CHARS characters
// (or elements, keys) it reads or writes.
describe("steps charged for work proportional to a value's size", () => {
  const xs = Array.from({ length: 5000 }, (_, i) => i);
  const s = "a".repeat(100_000);
  const t = `${"a".repeat(99_999)}b`;
  const obj = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
  // Kept exactly (LosslessNumber): 60,000 digits after the point, within the float64 range.
  const long = parseJson(`{"n": 0.${"2".repeat(60_000)}, "m": 0.${"2".repeat(59_999)}3}`) as {
    [k: string]: LosslessNumber;
  };
  const scope = { input: { xs, s, t, obj, list: [s], big: [obj], ...long } };
  const repeated: Array<[string, string]> = [
    ["len of a string", "map(input.xs, x => len(input.s))"],
    ["len of an object", "map(input.xs, x => len(input.obj))"],
    ["lower", "map(input.xs, x => len(lower(input.s)))"],
    ["upper", "map(input.xs, x => len(upper(input.s)))"],
    ["contains on a string", "map(input.xs, x => contains(input.s, input.t))"],
    ["contains on an array", "map(input.xs, x => contains(input.list, input.t))"],
    ["==", "map(input.xs, x => input.s == input.t)"],
    ["!= of objects", 'map(input.xs, x => input.obj != {"k0": 0})'],
    ["<", "map(input.xs, x => input.s < input.t)"],
    ["join of an object", 'map(input.xs, x => len(join(input.big, "")))'],
    ["== of long numbers", "map(input.xs, x => input.n == input.m)"],
    ["< of long numbers", "map(input.xs, x => input.n < input.m)"],
    ["contains of a long number", "map(input.xs, x => contains([input.n], input.m))"],
    ["- of long numbers", "map(input.xs, x => input.n - input.m > 0)"],
  ];
  for (const [what, source] of repeated)
    it(`stops ${what} repeated over a large value at the step budget`, () => {
      expect(limitOf(() => evaluate(parseExpression(source), scope))).toMatch(/^engine\.limit steps: /);
    });

  it("stops an interpolation of a large value repeated in a map at the step budget", () => {
    const template = parseTemplate('${map(input.xs, x => len(join(input.list, "")))}');
    expect(limitOf(() => evaluateTemplate(template, scope))).toMatch(/^engine\.limit steps: /);
  });

  it("still evaluates each of them once on the largest value the limits allow", () => {
    const once = { input: { s: "a".repeat(8_000_000), t: "b" } };
    expect(evaluate(parseExpression("len(input.s)"), once)).toBe(8_000_000);
    expect(evaluate(parseExpression("contains(input.s, input.t)"), once)).toBe(false);
    expect(evaluate(parseExpression("input.s == input.t"), once)).toBe(false);
  });
});

describe("the value depth limit", () => {
  it("refuses a value nested deeper than the limit, also when it nests a deep value from the scope", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10; i++) deep = [deep];
    const scope = { input: { deep } as never };
    const expr = parseExpression("[input.deep]");
    expect(evaluate(expr, scope, evalBudget({ maxValueDepth: 12 }))).toEqual([deep]);
    expect(limitOf(() => evaluate(expr, scope, evalBudget({ maxValueDepth: 10 })))).toBe(
      "engine.limit value_depth: a value would be nested more than 10 levels deep (the value depth limit)",
    );
  });

  it("measures a value as deep as the limit allows without overflowing the stack", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(limitOf(() => evaluateShape(compileShape("$: input.d"), { input: { d: deep } as never }))).toMatch(
      /value_depth/,
    );
  });
});

describe("jsonTextSize", () => {
  it("is the budget's measure of every value, never less than its JSON text", () => {
    const values: Json[] = [
      null,
      true,
      false,
      "",
      "héllo",
      0,
      -12.5,
      1e21,
      [],
      {},
      [1, "two", null, [3], { four: 4 }],
      { input: { a: [1, 2, { b: "c" }] }, outputs: { one: 1, two: { deep: [[[]]] } }, _error: null },
    ];
    for (const value of values) {
      expect(jsonTextSize(value)).toBe(jsonSize(evalBudget({ maxValueDepth: Number.POSITIVE_INFINITY }), value));
      // One separator more per non-empty container than the text has.
      expect(jsonTextSize(value)).toBeGreaterThanOrEqual(JSON.stringify(value).length);
    }
    const exact = parseJson('{"n": 12345678901234567890.5}');
    expect(jsonTextSize(exact)).toBe('{"n":12345678901234567890.5,}'.length);
  });
});
