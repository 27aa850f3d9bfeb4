import { LosslessNumber, parseJson } from "@baton/expr";
import { describe, expect, it } from "vitest";
import { validateValue } from "./schema-validate.js";

const order = {
  type: "object",
  properties: {
    customer: { type: "object", properties: { email: { type: "string", minLength: 3 } }, required: ["email"] },
    items: { type: "array", items: { type: "integer" } },
    kind: { enum: ["a", "b"] },
  },
  required: ["customer"],
};

describe("validateValue", () => {
  it("returns no problems for a matching value", () => {
    expect(validateValue(order, { customer: { email: "a@b.c" }, items: [1, 2] })).toEqual([]);
  });

  it("names the missing property with a dotted path under rootPath", () => {
    expect(validateValue(order, { customer: {} }, undefined, "input")).toEqual([
      { path: "input.customer.email", message: 'required property "email" is missing' },
    ]);
  });

  it("names array elements with indexes", () => {
    expect(validateValue(order, { customer: { email: "abc" }, items: [1, "x"] }, undefined, "result")).toEqual([
      { path: "result.items[1]", message: "expected integer, got a string" },
    ]);
  });

  it("reports every problem at once", () => {
    const ps = validateValue(order, { customer: { email: "a" }, kind: "c" }, undefined, "input");
    expect(ps.map((p) => p.path).sort()).toEqual(["input.customer.email", "input.kind"]);
    expect(ps.find((p) => p.path === "input.kind")?.message).toBe('expected one of "a", "b"');
  });

  it("describes the root as value when there is no rootPath", () => {
    expect(validateValue({ type: "string" }, 3)).toEqual([{ path: "value", message: "expected string, got a number" }]);
  });

  it("validates LosslessNumbers as numbers", () => {
    const value = parseJson('{"n": 123456789012345678901234567890}');
    expect(validateValue({ type: "object", properties: { n: { type: "integer", minimum: 0 } } }, value)).toEqual([]);
    expect(
      validateValue({ type: "integer", maximum: 10 }, new LosslessNumber("123456789012345678901234567890"))[0].message,
    ).toMatch(/<= 10/);
  });

  it("resolves $ref through the definition's $defs", () => {
    const defs = { money: { type: "object", properties: { cents: { type: "integer" } }, required: ["cents"] } };
    const schema = { type: "object", properties: { price: { $ref: "#/$defs/money" } } };
    expect(validateValue(schema, { price: { cents: 5 } }, defs)).toEqual([]);
    expect(validateValue(schema, { price: {} }, defs, "input")).toEqual([
      { path: "input.price.cents", message: 'required property "cents" is missing' },
    ]);
  });

  it("summarises a failing oneOf without each branch's noise", () => {
    const ps = validateValue({ oneOf: [{ type: "string" }, { type: "integer" }] }, true, undefined, "x");
    expect(ps).toEqual([{ path: "x", message: "must match exactly one of the oneOf schemas" }]);
  });

  it("does not mutate the value (defaults are conformValue's job)", () => {
    const v = { a: 1 };
    validateValue({ type: "object", properties: { b: { type: "number", default: 2 } } }, v);
    expect(v).toEqual({ a: 1 });
  });

  it("compiles a schema once and reuses it for equal schemas", () => {
    const s1 = { type: "object", properties: { q: { type: "number" } } };
    const s2 = JSON.parse(JSON.stringify(s1));
    expect(validateValue(s1, { q: "x" })).toEqual(validateValue(s2, { q: "x" }));
  });

  it("quotes non-identifier keys in paths", () => {
    expect(
      validateValue({ type: "object", properties: { "a-b": { type: "string" } } }, { "a-b": 1 }, undefined, "input")[0]
        .path,
    ).toBe('input["a-b"]');
  });
});

describe("validateValue details", () => {
  it("names additionalProperties mismatches by key", () => {
    expect(
      validateValue(
        { type: "object", additionalProperties: { type: "integer" } },
        { a: 1, b: "x" },
        undefined,
        "input",
      ),
    ).toEqual([{ path: "input.b", message: "expected integer, got a string" }]);
  });

  it("summarises a failing anyOf", () => {
    expect(validateValue({ anyOf: [{ type: "string" }, { type: "null" }] }, 3, undefined, "x")).toEqual([
      { path: "x", message: "must match at least one of the anyOf schemas" },
    ]);
  });

  it("accepts nullable types", () => {
    expect(validateValue({ type: ["string", "null"] }, null)).toEqual([]);
  });

  it("reports bounds with ajv's wording", () => {
    expect(validateValue({ type: "string", maxLength: 2 }, "abc", undefined, "s")[0]).toEqual({
      path: "s",
      message: "must NOT have more than 2 characters",
    });
    expect(validateValue({ type: "array", minItems: 1 }, [], undefined, "s")[0].message).toMatch(/fewer than 1 items/);
  });
});

describe("numbers out of the float64 range", () => {
  const qty = { type: "object", properties: { qty: { type: "integer", minimum: 1 } } };

  it("never conform, whatever the schema: 1e40000000 is not an integer ≥ 1 but out of range", () => {
    expect(validateValue(qty, parseJson('{"qty": 1e40000000}'), undefined, "input")).toEqual([
      {
        path: "input.qty",
        message:
          "the number 1e40000000 is out of range: numbers must lie within ±1.7976931348623157e308 and, unless zero, be at least 5e-324 in magnitude",
      },
    ]);
    expect(validateValue({}, parseJson("[1e-400]"))).toHaveLength(1);
    expect(validateValue({}, parseJson("[-1e309]"))).toHaveLength(1);
  });

  it("accepts big and tiny numbers inside the range, and zero written with an exponent", () => {
    expect(validateValue(qty, parseJson('{"qty": 1e308}'))).toEqual([]);
    expect(validateValue({}, parseJson("[5e-324, 0e-400, 12345678901234567890123]"))).toEqual([]);
  });
});
