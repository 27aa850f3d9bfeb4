import { describe, expect, it } from "vitest";
import { checkSchema, refName } from "./schema-subset.js";

const ok = (schema: unknown, defs?: string[]) => expect(checkSchema(schema, "s", { defs })).toEqual([]);
const problems = (schema: unknown, defs?: string[]) => checkSchema(schema, "s", { defs });

describe("checkSchema accepts the subset", () => {
  it("accepts every supported keyword", () => {
    ok({
      type: "object",
      description: "an order",
      properties: {
        id: { type: "string", minLength: 1, maxLength: 64 },
        qty: { type: "integer", minimum: 1, maximum: 100, default: 1 },
        tags: { type: "array", items: { type: "string" }, minItems: 0, maxItems: 5 },
        kind: { enum: ["a", "b"] },
        note: { type: ["string", "null"] },
        token: { type: "string", secret: true },
        either: { oneOf: [{ type: "string" }, { type: "number" }] },
        any: { anyOf: [{ type: "boolean" }, {}] },
        extra: { type: "object", additionalProperties: { type: "number" } },
        ref: { $ref: "#/$defs/money" },
      },
      required: ["id"],
      $defs: { money: { type: "number" } },
    });
  });

  it("accepts {} as unknown", () => ok({}));

  it("resolves $ref against the given defs and the schema's own $defs", () => {
    ok({ $ref: "#/$defs/a" }, ["a"]);
    ok({ $defs: { b: {} }, properties: { x: { $ref: "#/$defs/b" } } }, []);
  });
});

describe("checkSchema refuses everything else, naming keyword and path", () => {
  it.each(["format", "pattern", "allOf", "not", "const", "if", "title", "patternProperties", "exclusiveMinimum"])(
    "refuses %s",
    (kw) => {
      const [p] = problems({ type: "string", [kw]: "x" });
      expect(p.path).toBe("s");
      expect(p.message).toContain(`unknown field "${kw}"`);
      expect(p.message).toContain("JSON Schema subset");
    },
  );

  it("finds nested unsupported keywords with their path", () => {
    const [p] = problems({ type: "object", properties: { email: { type: "string", format: "email" } } });
    expect(p.path).toBe("s.properties.email");
    expect(p.message).toContain('"format"');
  });

  it("finds them in arrays of schemas", () => {
    expect(problems({ oneOf: [{}, { pattern: "x" }] })[0].path).toBe("s.oneOf[1]");
  });

  it("refuses boolean schemas", () => {
    expect(problems(true)[0].message).toMatch(/boolean schemas are not supported/);
    expect(problems({ properties: { a: false } })[0].path).toBe("s.properties.a");
  });

  it("refuses a boolean additionalProperties with advice", () => {
    expect(problems({ additionalProperties: true })[0].message).toMatch(/use \{\} to allow/);
    expect(problems({ additionalProperties: false })[0].message).toMatch(/already stripped/);
  });

  it("refuses tuple items", () => {
    expect(problems({ items: [{}, {}] })[0].message).toMatch(/tuple/);
  });

  it("refuses unknown type names and duplicates", () => {
    expect(problems({ type: "float" })[0].message).toMatch(/unknown type "float"/);
    expect(problems({ type: ["string", "string"] })[0].message).toMatch(/twice/);
    expect(problems({ type: [] })[0].message).toMatch(/non-empty array/);
  });

  it("checks keyword value types", () => {
    expect(problems({ minLength: -1 })[0].path).toBe("s.minLength");
    expect(problems({ minimum: "1" })[0].message).toMatch(/expected a number/);
    expect(problems({ enum: [] })[0].message).toMatch(/non-empty array/);
    expect(problems({ description: 3 })[0].message).toMatch(/expected a string/);
    expect(problems({ secret: "yes" })[0].message).toMatch(/expected a boolean/);
    expect(problems({ oneOf: [] })[0].message).toMatch(/non-empty array of schemas/);
    expect(problems("string")[0].message).toBe("expected a schema object, got a string");
  });

  it("refuses required properties that are not declared", () => {
    expect(problems({ type: "object", properties: { a: {} }, required: ["b"] })[0].message).toMatch(
      /"b" is not declared/,
    );
    ok({ type: "object", additionalProperties: {}, required: ["b"] });
  });

  it("refuses references outside #/$defs and unknown names", () => {
    expect(problems({ $ref: "http://x/schema" })[0].message).toMatch(/only "#\/\$defs\/<name>"/);
    expect(problems({ $ref: "#/$defs/nope" }, ["money"])[0].message).toMatch(
      /names no schema in \$defs \(known: money\)/,
    );
  });

  it("allows $defs only at the top of a schema", () => {
    expect(problems({ properties: { a: { $defs: {} } } })[0].message).toMatch(/only allowed at the top/);
  });

  it("collects every problem, not just the first", () => {
    expect(problems({ format: "x", properties: { a: { pattern: "y" } }, minItems: "z" })).toHaveLength(3);
  });
});

describe("refName", () => {
  it("extracts the $defs name", () => {
    expect(refName("#/$defs/money")).toBe("money");
    expect(refName("#/definitions/money")).toBeUndefined();
  });
});

describe("checkSchema defaults", () => {
  it("refuses a default that fails its own schema", () => {
    expect(problems({ type: "object", properties: { n: { type: "integer", minimum: 1, default: 0 } } })).toEqual([
      { path: "s.properties.n.default", message: "the default does not match its own schema: default: must be >= 1" },
    ]);
    expect(problems({ type: "string", enum: ["a"], default: "b" })[0].path).toBe("s.default");
  });

  it("accepts matching defaults, and skips those whose schema uses $ref", () => {
    ok({
      type: "object",
      properties: {
        n: { type: "integer", default: 3 },
        tags: { type: "array", items: { type: "string" }, default: [] },
      },
    });
    ok({ $ref: "#/$defs/x", default: 1 }, ["x"]);
  });
});
