import { describe, expect, it } from "vitest";
import { decodeDefinition } from "./decode/decode-definition.js";
import { writtenOutNodes } from "./schema-size.js";

/** $defs d0…dN, each naming the next twice: N+1 small definitions, 2^N nodes written out. */
function doubling(levels: number, twice: (next: { $ref: string }) => Record<string, unknown>) {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) defs[`d${i}`] = twice({ $ref: `#/$defs/d${i + 1}` });
  defs[`d${levels}`] = { type: "string" };
  return defs;
}
const viaAnyOf = (next: { $ref: string }) => ({ anyOf: [next, next] });
const viaProperties = (next: { $ref: string }) => ({ type: "object", properties: { a: next, b: next } });

describe("the size of a schema written out (issue 12)", () => {
  it("counts each $ref as the definition it names, stopping just past the limit", () => {
    const defs = doubling(40, viaAnyOf);
    expect(writtenOutNodes({ $ref: "#/$defs/d38" }, defs, 1000, new Map())).toBeLessThan(30);
    expect(writtenOutNodes({ $ref: "#/$defs/d0" }, defs, 1000, new Map())).toBe(1001);
  });

  it("writes a recursive definition out once, keeping the $ref that recurses", () => {
    const defs = { tree: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/tree" } } } } };
    expect(writtenOutNodes({ $ref: "#/$defs/tree" }, defs, 1000, new Map())).toBe(5);
  });
});

describe("registration of schemas that are small as text and huge written out", () => {
  const definition = (defs: Record<string, unknown>) => ({
    name: "x",
    $defs: defs,
    input_schema: { type: "object", properties: { a: { $ref: "#/$defs/d0" } } },
    tasks: [{ id: "t", output: { v: "$: input.a" } }],
  });

  for (const [how, twice] of [
    ["anyOf", viaAnyOf],
    ["properties", viaProperties],
  ] as const) {
    it(`refuses 40 definitions each naming the next twice through ${how} (2^40 nodes once took the checker hours)`, () => {
      const result = decodeDefinition(definition(doubling(40, twice)));
      expect(result.ok).toBe(false);
      const problem = (result as { problems: { path: string; message: string }[] }).problems[0];
      expect(problem.path).toBe("$defs.d0");
      expect(problem.message).toContain("is more than 20000 nodes (the limit of one type, --limit-type-nodes");
    });
  }

  it("accepts the same shape while it stays under the limit", () => {
    expect(decodeDefinition(definition(doubling(8, viaAnyOf))).ok).toBe(true);
  });
});

describe("$defs that refer to themselves without a property or item in between (issue 12)", () => {
  const start = (defs: Record<string, unknown>) =>
    decodeDefinition({
      name: "x",
      $defs: defs,
      input_schema: { type: "object", properties: { q: { $ref: "#/$defs/a" } } },
      tasks: [{ id: "t", output: { v: "$: input" } }],
    });

  it("are refused, naming the cycle, so no start can overflow the validator's stack", () => {
    for (const [defs, cycle] of [
      [{ a: { $ref: "#/$defs/a" } }, '"a" → "a"'],
      [{ a: { $ref: "#/$defs/b", description: "x" }, b: { $ref: "#/$defs/a" } }, '"a" → "b" → "a"'],
      // A cycle hidden inside nested anyOf: no $ref in it points at its own name directly.
      [{ a: { anyOf: [{ anyOf: [{}, { $ref: "#/$defs/a" }] }] } }, '"a" → "a"'],
      [{ a: { oneOf: [{ type: "string" }, { $ref: "#/$defs/b" }] }, b: { $ref: "#/$defs/a" } }, '"a" → "b" → "a"'],
    ] as const) {
      const result = start(defs);
      expect(result.ok).toBe(false);
      const messages = (result as { problems: { message: string }[] }).problems.map((p) => p.message);
      expect(messages).toContain(
        `$defs ${cycle} refer to each other through $ref, anyOf or oneOf alone, without a property or item in between, so they describe no value of their own; give the recursion a property or an item`,
      );
    }
  });

  it("are accepted when the recursion passes through a property", () => {
    expect(
      start({ a: { $ref: "#/$defs/b" }, b: { type: "object", properties: { c: { $ref: "#/$defs/a" } } } }).ok,
    ).toBe(true);
  });
});
