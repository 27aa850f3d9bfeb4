// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" in plain strings is the template syntax under test
import { describe, expect, it } from "vitest";
import { type CheckResult, checkCondition, checkExpression, checkTemplate, type TypeEnv } from "./check.js";
import { parseExpression } from "./parser.js";
import { parseTemplate } from "./template.js";

const env: TypeEnv = {
  roots: {
    input: {
      type: "object",
      properties: {
        id: { type: "integer" },
        name: { type: "string" },
        note: { type: ["string", "null"] },
        price: { type: "number" },
        active: { type: "boolean" },
        lang: { type: "string", default: "en" },
        tags: { type: "array", items: { type: "string" } },
        lines: { type: "array", items: { $ref: "#/$defs/line" } },
        customer: { $ref: "#/$defs/customer" },
        meta: {},
        extra: { type: "object", additionalProperties: { type: "integer" } },
        kind: { enum: ["a", "b"] },
      },
      required: ["id", "name", "note", "price", "active", "tags", "lines", "customer", "meta", "extra", "kind"],
    },
    outputs: {
      type: "object",
      properties: { fetch_user: { type: "object", properties: { email: { type: "string" } }, required: ["email"] } },
      required: ["fetch_user"],
    },
    self: { type: "object", properties: { status: { type: "integer" }, result: {} }, required: ["status", "result"] },
  },
  defs: {
    line: {
      type: "object",
      properties: { sku: { type: "string" }, qty: { type: "integer" } },
      required: ["sku", "qty"],
    },
    customer: {
      type: "object",
      properties: { email: { type: "string" }, vip: { type: "boolean" } },
      required: ["email"],
    },
  },
};

const check = (source: string, e: TypeEnv = env): CheckResult => checkExpression(parseExpression(source), e);
const typeOf = (source: string) => {
  const result = check(source);
  expect(
    result.problems.map((p) => p.message),
    source,
  ).toEqual([]);
  return result.type;
};
const problemsOf = (source: string, e: TypeEnv = env) => check(source, e).problems.map((p) => p.reason);

describe("checkExpression: roots", () => {
  it("reports an unknown root by name and lists the available roots", () => {
    const [problem] = check("inpt.id").problems;
    expect(problem.reason).toBe('unknown root "inpt" at 0, expected one of the available roots: input, outputs, self');
    expect(problem.position).toBe(0);
    expect(problem.message, "the message quotes the source with a caret").toBe(`${problem.reason}\n  inpt.id\n  ^`);
  });

  it("treats a root listed as undefined as unavailable and explains why when told", () => {
    const e: TypeEnv = {
      roots: { input: undefined, self: {} },
      rootNotes: { input: "the process declares no input_schema" },
    };
    expect(problemsOf("input.x", e)).toEqual([
      'root "input" is not available here: the process declares no input_schema at 0, expected one of the available roots: self',
    ]);
  });

  it("accepts lambda parameters as names and lets them shadow roots", () => {
    expect(problemsOf("map(input.tags, t => t)")).toEqual([]);
    expect(typeOf("map(input.lines, input => input.qty)")).toEqual({ type: "array", items: { type: "integer" } });
    expect(problemsOf("map(input.tags, t => t) == t"), "a parameter is not visible outside its lambda").toEqual([
      'unknown root "t" at 27, expected one of the available roots: input, outputs, self',
    ]);
  });
});

describe("checkExpression: properties", () => {
  it("reports an unknown property of a known schema, naming it and listing the known ones", () => {
    expect(problemsOf("outputs.fetch_user.emial")).toEqual([
      'unknown property "emial" of outputs.fetch_user at 19, expected one of its known properties: email',
    ]);
  });

  it("reports a task id unknown to outputs like any unknown property", () => {
    expect(problemsOf("outputs.nope.x")[0]).toBe(
      'unknown property "nope" of outputs at 8, expected one of its known properties: fetch_user',
    );
  });

  it("resolves $ref through env.defs", () => {
    expect(typeOf("input.customer.email")).toEqual({ type: "string" });
    expect(problemsOf("input.customer.mail")).toEqual([
      'unknown property "mail" of input.customer at 15, expected one of its known properties: email, vip',
    ]);
    expect(typeOf("input.lines[0].qty")).toEqual({ type: ["integer", "null"] });
  });

  it("treats string-literal indexes like property access", () => {
    expect(typeOf("input['customer']['email']")).toEqual({ type: "string" });
    expect(problemsOf("input['nme']")[0]).toContain('unknown property "nme" of input at 6');
  });

  it("lets an unknown schema be passed on whole", () => {
    expect(typeOf("input.meta")).toEqual({});
    expect(problemsOf("input.meta")).toEqual([]);
    expect(problemsOf("self.result ?? input.meta")).toEqual([]);
    expect(problemsOf("input.meta == null")).toEqual([]);
    expect(problemsOf("len(input.meta) > 0"), "builtins take the whole value and check it at run time").toEqual([]);
  });

  it("refuses reading a member of an unknown value, naming the path and suggesting a schema", () => {
    const [message] = problemsOf("self.result.anything");
    expect(message).toMatch(
      /^cannot read "\.anything" of self\.result: its type is unknown \(\{\}\) at 12, expected a value with a declared schema: declare/,
    );
    expect(message).toContain("result_schema");
  });

  it("reports an unknown read once per path, at its first step", () => {
    expect(problemsOf("input.meta.a.b[0]")).toHaveLength(1);
    expect(problemsOf("input.meta.a.b[0]")[0]).toMatch(/^cannot read "\.a" of input\.meta: its type is unknown/);
  });

  it("refuses indexing into an unknown value, literal or computed", () => {
    expect(problemsOf("input.meta[0]")[0]).toMatch(/^cannot read "\[0\]" of input\.meta: its type is unknown/);
    expect(problemsOf("input.meta['a-b']")[0]).toMatch(/^cannot read "\['a-b'\]" of input\.meta/);
    expect(problemsOf("input.meta[input.name]")[0]).toMatch(/^cannot read "\[input\.name\]" of input\.meta/);
  });

  it("refuses reading into a union that contains the unknown type", () => {
    const e: TypeEnv = {
      roots: {
        input: {
          type: "object",
          properties: { u: { anyOf: [{ type: "object", properties: { a: { type: "integer" } } }, {}] } },
        },
      },
    };
    expect(check("input.u.a", e).problems.map((p) => p.reason)).toEqual([
      expect.stringMatching(/^cannot read "\.a" of input\.u: its type is unknown/),
    ]);
  });

  it("still reads declared properties of an object and of a $ref", () => {
    const e: TypeEnv = {
      roots: { input: { $ref: "#/$defs/x" } },
      defs: { x: { type: "object", properties: { a: { type: "integer" } }, required: ["a"] } },
    };
    expect(check("input.a", e).problems).toEqual([]);
  });

  it("types additionalProperties reads as nullable", () => {
    expect(typeOf("input.extra.whatever")).toEqual({ type: ["integer", "null"] });
  });

  it("refuses property access on a scalar", () => {
    expect(problemsOf("input.id.x")).toEqual([
      'cannot read property "x" of input.id, which is integer at 9, expected an object',
    ]);
  });

  it("refuses indexing with the wrong key type", () => {
    expect(problemsOf("input.tags['a' + 'b']")).toEqual(["array index is string at 11, expected a number"]);
    expect(problemsOf("input.customer[1]")).toEqual(["object key is integer at 15, expected a string"]);
    expect(problemsOf("input.id[0]")).toEqual([
      "cannot index input.id, which is integer at 9, expected an array or an object",
    ]);
  });
});

describe("checkExpression: inferred types", () => {
  it.each([
    ["1", { type: "integer" }],
    ["1.5", { type: "number" }],
    ["'s'", { type: "string" }],
    ["true", { type: "boolean" }],
    ["null", { type: "null" }],
    ["input.id + 1", { type: "integer" }],
    ["input.id + input.price", { type: "number" }],
    ["input.id / 2", { type: "number" }],
    ["input.id % 2", { type: "integer" }],
    ["-input.id", { type: "integer" }],
    ["input.name + '!'", { type: "string" }],
    ["input.id > 1", { type: "boolean" }],
    ["input.name == 'x' && !input.active", { type: "boolean" }],
    ["input.note ?? ''", { type: "string" }],
    ["input.note ?? 1", { type: ["string", "integer"] }],
    ["input.active ? 'y' : 'n'", { type: "string" }],
    ["input.active ? input.id : null", { type: ["integer", "null"] }],
    ["input.tags", { type: "array", items: { type: "string" } }],
    ["input.tags[0]", { type: ["string", "null"] }],
    ["[1, 2.5]", { type: "array", items: { type: "number" } }],
    ["[]", { type: "array" }],
    [
      "{a: 1, b: input.name}",
      { type: "object", properties: { a: { type: "integer" }, b: { type: "string" } }, required: ["a", "b"] },
    ],
    ["map(input.lines, l => l.sku)", { type: "array", items: { type: "string" } }],
    ["map(input.tags, (t, i) => i)", { type: "array", items: { type: "integer" } }],
    ["len(input.tags)", { type: "integer" }],
    ["upper(input.name)", { type: "string" }],
    ["lower(input.note)", { type: ["string", "null"] }],
    ["contains(input.tags, 'x')", { type: "boolean" }],
    ["join(input.tags, ',')", { type: "string" }],
    ["now_ms()", { type: "integer" }],
    ["input.kind", { enum: ["a", "b"] }],
    ["input.meta + 1", { type: "number" }],
    ["input.meta + input.meta", {}],
  ])("%s has type %j", (source, type) => {
    expect(typeOf(source)).toEqual(type);
  });

  it("keeps a missing optional property nullable and a defaulted one not", () => {
    const e: TypeEnv = {
      roots: { input: { type: "object", properties: { a: { type: "string" }, b: { type: "string", default: "x" } } } },
    };
    expect(check("input.a", e).type).toEqual({ type: ["string", "null"] });
    expect(check("input.b", e).type).toEqual({ type: "string", default: "x" });
  });
});

describe("checkExpression: operator problems", () => {
  it.each([
    [
      "input.name + 1",
      '"+" applied to string and integer at 11, expected two numbers (to add) or two strings (to concatenate)',
    ],
    [
      "input.tags + 1",
      '"+" applied to array and integer at 11, expected two numbers (to add) or two strings (to concatenate)',
    ],
    ["null + 1", '"+" applied to null and integer at 5, expected two numbers (to add) or two strings (to concatenate)'],
    ["input.name - 1", 'left side of "-" is string at 0, expected a number'],
    ["2 * input.active", 'right side of "*" is boolean at 4, expected a number'],
    ["input.name < 3", '"<" applied to string and integer at 11, expected two numbers or two strings'],
    ["input.id && true", 'left side of "&&" is integer at 0, expected a boolean'],
    ["true || 'x'", 'right side of "||" is string at 8, expected a boolean'],
    ["!input.name", '"!" applied to string at 1, expected a boolean'],
    ["-input.name", 'unary "-" applied to string at 1, expected a number'],
    ["input.id ? 1 : 2", 'the condition of "? :" is integer at 0, expected a boolean'],
    ["map(input.name, x => x)", "map() over string at 4, expected an array"],
    ["len(input.id)", "argument 1 of len() is integer at 4, expected a string, an array or an object"],
    ["upper(input.tags)", "argument 1 of upper() is array at 6, expected a string"],
    ["join(input.tags, 1)", "argument 2 of join() is integer at 17, expected a string"],
    ["contains(input.name, 1)", "argument 2 of contains() is integer at 21, expected a string"],
  ])("%s: %s", (source, reason) => {
    expect(problemsOf(source)).toEqual([reason]);
  });

  it("reports == and != between types that can never be equal", () => {
    expect(problemsOf("self.status == '200'")).toEqual([
      '"==" compares integer with string, which is always false at 12, expected operands of the same type (values are never converted: 1 == "1" is false)',
    ]);
    expect(problemsOf("input.tags != 'x'")[0]).toContain('"!=" compares array with string, which is always true at 11');
  });

  it("accepts == between overlapping types, numbers of either kind, and against null", () => {
    expect(problemsOf("input.id == 1.5")).toEqual([]);
    expect(problemsOf("input.note == 'x'")).toEqual([]);
    expect(problemsOf("input.id == null"), "a defensive null test is not an error").toEqual([]);
    expect(problemsOf("input.meta == 1")).toEqual([]);
    expect(problemsOf("input.kind == 'a'")).toEqual([]);
  });

  it("does not report what only may go wrong at run time (nullable operands, unknown types)", () => {
    expect(problemsOf("input.note + '!'")).toEqual([]);
    expect(problemsOf("input.meta + 1")).toEqual([]);
    expect(problemsOf("input.lines[0].qty * 2")).toEqual([]);
    expect(problemsOf("contains(input.tags, 1)"), "an array may hold anything").toEqual([]);
  });

  it("collects every problem of an expression, in source order", () => {
    expect(problemsOf("inpt.a + input.nope")).toEqual([
      'unknown root "inpt" at 0, expected one of the available roots: input, outputs, self',
      'unknown property "nope" of input at 15, expected one of its known properties: id, name, note, price, active, lang, tags, lines, customer, meta, extra, kind',
    ]);
  });
});

describe("checkCondition", () => {
  it("accepts boolean expressions", () => {
    expect(checkCondition(parseExpression("self.status == 200 && input.active"), env).problems).toEqual([]);
    expect(checkCondition(parseExpression("input.meta"), env).problems, "unknown cannot be judged").toEqual([]);
  });

  it("refuses a non-boolean case with the required message", () => {
    const [problem] = checkCondition(parseExpression("self.status"), env).problems;
    expect(problem.reason).toBe("case must be a boolean expression, got integer at 0, expected true or false");
    expect(problem.message).toContain("\n  self.status\n  ^");
  });

  it("refuses a case that may be null and suggests ?? false", () => {
    const e: TypeEnv = { roots: { input: { type: "object", properties: { ok: { type: "boolean" } } } } };
    expect(checkCondition(parseExpression("input.ok"), e).problems.map((p) => p.reason)).toEqual([
      "case must be a boolean expression, got boolean or null at 0, expected true or false, e.g. (input.ok) ?? false",
    ]);
    expect(checkCondition(parseExpression("input.ok ?? false"), e).problems).toEqual([]);
  });

  it("keeps the expression's own problems", () => {
    expect(checkCondition(parseExpression("input.nope == 1"), env).problems).toHaveLength(1);
  });
});

describe("checkTemplate", () => {
  const problems = (text: string, e: TypeEnv = env) =>
    checkTemplate(parseTemplate(text), e).problems.map((p) => p.reason);

  it("types literals and interpolations as strings and $: as the expression", () => {
    expect(checkTemplate(parseTemplate("plain"), env).type).toEqual({ type: "string" });
    expect(checkTemplate(parseTemplate("id ${input.id}"), env).type).toEqual({ type: "string" });
    expect(checkTemplate(parseTemplate("$: input.lines"), env).type).toEqual({
      type: "array",
      items: { $ref: "#/$defs/line" },
    });
  });

  it("reports interpolating a value that may be null without ??", () => {
    expect(problems("Hi ${ input.note }!")).toEqual([
      'interpolating input.note, which may be null (string or null), at 6, expected a value that is never null: add a default with ??, e.g. ${ input.note ?? "" }',
    ]);
    expect(problems("${input.tags[0]}"), "an index may be out of range").toHaveLength(1);
  });

  it("accepts the same interpolation with a ?? default, and non-null values", () => {
    expect(problems("Hi ${ input.note ?? 'there' }!")).toEqual([]);
    expect(problems("${input.id}/${input.name}/${input.meta}")).toEqual([]);
  });

  it("still reports a ?? whose default may be null", () => {
    expect(problems("${ input.note ?? input.note }")).toHaveLength(1);
  });

  it("quotes the whole template with the caret at the expression", () => {
    const [problem] = checkTemplate(parseTemplate("/users/${ inpt.id }"), env).problems;
    expect(problem.position).toBe(10);
    expect(problem.message).toBe(`${problem.reason}\n  /users/\${ inpt.id }\n            ^`);
  });

  it("reports problems of $: expressions at their offset in the leaf", () => {
    const [problem] = checkTemplate(parseTemplate("$: input.nope"), env).problems;
    expect(problem.position).toBe(9);
  });
});

describe("checkExpression: lambdas, nullability and sources", () => {
  it("types nested lambdas with access to outer parameters", () => {
    expect(typeOf("map(input.lines, l => map(input.tags, t => l.sku + t))")).toEqual({
      type: "array",
      items: { type: "array", items: { type: "string" } },
    });
  });

  it("makes map over a nullable list nullable, and over an unknown list an array of unknown", () => {
    const e: TypeEnv = {
      roots: { input: { type: "object", properties: { xs: { type: "array", items: { type: "integer" } } } } },
    };
    expect(check("map(input.xs, x => x * 2)", e).type).toEqual({ type: ["array", "null"], items: { type: "integer" } });
    expect(typeOf("map(input.meta, x => x)")).toEqual({ type: "array" });
    expect(
      problemsOf("map(input.meta, x => x.anything)")[0],
      "the elements of an unknown list are unknown too",
    ).toMatch(/^cannot read "\.anything" of x: its type is unknown/);
  });

  it("reports an unknown property of a lambda element against the element schema", () => {
    expect(problemsOf("map(input.lines, l => l.price)")).toEqual([
      'unknown property "price" of l at 24, expected one of its known properties: sku, qty',
    ]);
  });

  it("reports unknown properties of object literals", () => {
    expect(problemsOf("{a: 1}.b")).toEqual([
      'unknown property "b" of {a: 1} at 7, expected one of its known properties: a',
    ]);
  });

  it("says so when no root is available at all", () => {
    expect(problemsOf("x", { roots: {} })).toEqual(['unknown root "x" at 0, expected no root: none is available here']);
  });

  it("quotes an explicitly given source", () => {
    const expr = parseExpression("inpt");
    const [problem] = checkExpression(expr, env, "inpt").problems;
    expect(problem.message).toBe(`${problem.reason}\n  inpt\n  ^`);
  });

  it("does not report a nullable condition or operand (only definite mismatches)", () => {
    const e: TypeEnv = {
      roots: { input: { type: "object", properties: { ok: { type: "boolean" }, n: { type: "integer" } } } },
    };
    expect(check("input.ok ? 1 : 2", e).problems).toEqual([]);
    expect(check("input.ok && true", e).problems).toEqual([]);
    expect(check("input.n + 1", e).problems).toEqual([]);
  });

  it("types ?? with a non-nullable left side as the union of both sides", () => {
    expect(typeOf("input.id ?? 'x'")).toEqual({ type: ["string", "integer"] });
  });
});
