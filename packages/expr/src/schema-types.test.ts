import { describe, expect, it } from "vitest";
import {
  describeType,
  elementType,
  itemType,
  type JsonSchema,
  mayBeNull,
  propertyType,
  resolveSchema,
  typesOf,
  unionOf,
  UNKNOWN,
  withNull,
  withoutNull,
} from "./schema-types.js";

const defs: { [name: string]: JsonSchema } = {
  money: {
    type: "object",
    properties: { amount: { type: "number" }, currency: { type: "string" } },
    required: ["amount"],
  },
  alias: { $ref: "#/$defs/money" },
};

describe("resolveSchema", () => {
  it("follows $ref chains through $defs", () => {
    expect(resolveSchema({ $ref: "#/$defs/alias" }, defs)).toBe(defs.money);
  });

  it("treats an unresolvable or cyclic $ref as unknown", () => {
    expect(resolveSchema({ $ref: "#/$defs/nope" }, defs)).toEqual(UNKNOWN);
    expect(resolveSchema({ $ref: "#/$defs/loop" }, { loop: { $ref: "#/$defs/loop" } })).toEqual(UNKNOWN);
  });
});

describe("typesOf and describeType", () => {
  it("reads type strings, type arrays, enums and unions", () => {
    expect(describeType({ type: "string" }, undefined)).toBe("string");
    expect(describeType({ type: ["integer", "null"] }, undefined)).toBe("integer or null");
    expect(describeType({ enum: ["a", 1, null] }, undefined)).toBe("string or integer or null");
    expect(describeType({ anyOf: [{ type: "string" }, { $ref: "#/$defs/money" }] }, defs)).toBe("object or string");
    expect(describeType({ oneOf: [{ type: "integer" }, { type: "number" }] }, undefined)).toBe("number");
  });

  it("calls a schema without type information unknown", () => {
    expect(typesOf({}, undefined)).toBeNull();
    expect(describeType({ description: "anything" }, undefined)).toBe("unknown");
    expect(
      typesOf({ anyOf: [{ type: "string" }, {}] }, undefined),
      "a union with an unknown branch is unknown",
    ).toBeNull();
  });

  it("knows which types may be null", () => {
    expect(mayBeNull({ type: ["string", "null"] }, undefined)).toBe(true);
    expect(mayBeNull({ type: "string" }, undefined)).toBe(false);
    expect(mayBeNull({}, undefined), "unknown is not reported as maybe-null").toBe(false);
  });
});

describe("unionOf, withNull, withoutNull", () => {
  it("merges simple types into a type array and integers into numbers", () => {
    expect(unionOf([{ type: "string" }, { type: "integer" }, { type: "string" }])).toEqual({
      type: ["string", "integer"],
    });
    expect(unionOf([{ type: "integer" }, { type: "number" }])).toEqual({ type: "number" });
  });

  it("folds null into a structured type and uses anyOf otherwise", () => {
    const object = { type: "object", properties: { a: { type: "string" } } };
    expect(unionOf([object, { type: "null" }])).toEqual({ ...object, type: ["object", "null"] });
    expect(unionOf([object, { type: "array" }, { type: "null" }])).toEqual({
      anyOf: [object, { type: "array" }, { type: "null" }],
    });
  });

  it("is unknown as soon as one member is unknown", () => {
    expect(unionOf([{ type: "string" }, {}])).toEqual(UNKNOWN);
  });

  it("adds and removes null", () => {
    expect(withNull({ type: "string", enum: ["a"] }, undefined)).toEqual({
      type: ["string", "null"],
      enum: ["a", null],
    });
    expect(withNull({ $ref: "#/$defs/money" }, defs)).toEqual({ anyOf: [{ $ref: "#/$defs/money" }, { type: "null" }] });
    expect(withoutNull({ type: ["string", "null"] }, undefined)).toEqual({ type: "string" });
    expect(withoutNull({ anyOf: [{ $ref: "#/$defs/money" }, { type: "null" }] }, defs)).toEqual({
      $ref: "#/$defs/money",
    });
    expect(withoutNull({ type: "null" }, undefined), "null alone leaves nothing").toBeUndefined();
  });
});

describe("propertyType", () => {
  const person: JsonSchema = {
    type: "object",
    properties: { id: { type: "integer" }, nick: { type: "string" }, lang: { type: "string", default: "en" } },
    required: ["id"],
  };

  it("types a required property as declared and an optional one as nullable", () => {
    expect(propertyType(person, "id", undefined)).toEqual({ type: { type: "integer" } });
    expect(propertyType(person, "nick", undefined)).toEqual({ type: { type: ["string", "null"] } });
  });

  it("does not make a property with a default nullable (conforming fills it)", () => {
    expect(propertyType(person, "lang", undefined).type).toEqual({ type: "string", default: "en" });
  });

  it("names the unknown property and lists the known ones", () => {
    expect(propertyType(person, "nik", undefined, "input").problem).toEqual({
      what: 'unknown property "nik" of input',
      expected: "expected one of its known properties: id, nick, lang",
    });
  });

  it("allows any property where additionalProperties is open or typed", () => {
    expect(propertyType({ ...person, additionalProperties: true }, "x", undefined)).toEqual({ type: UNKNOWN });
    expect(propertyType({ type: "object", additionalProperties: { type: "integer" } }, "x", undefined)).toEqual({
      type: { type: ["integer", "null"] },
    });
    expect(propertyType({ type: "object" }, "x", undefined), "an object without properties is unknown inside").toEqual({
      type: UNKNOWN,
    });
    expect(propertyType({}, "x", undefined)).toEqual({ type: UNKNOWN });
  });

  it("resolves $ref and looks into every object branch of a union", () => {
    expect(propertyType({ $ref: "#/$defs/alias" }, "amount", defs)).toEqual({ type: { type: "number" } });
    const union = { anyOf: [{ type: "null" }, { $ref: "#/$defs/money" }] };
    expect(propertyType(union, "amount", defs).type).toEqual({ type: ["number", "null"] });
    expect(propertyType(union, "nope", defs).problem?.what).toBe('unknown property "nope" of the value');
  });

  it("makes properties of a nullable object nullable", () => {
    expect(propertyType({ ...person, type: ["object", "null"] }, "id", undefined).type).toEqual({
      type: ["integer", "null"],
    });
  });

  it("refuses property access on scalars but not on null", () => {
    expect(propertyType({ type: "string" }, "x", undefined, "input.name").problem?.what).toBe(
      'cannot read property "x" of input.name, which is string',
    );
    expect(propertyType({ type: "null" }, "x", undefined)).toEqual({ type: { type: "null" } });
  });
});

describe("itemType and elementType", () => {
  it("types array elements, nullable when indexed (out of range reads null)", () => {
    const list = { type: "array", items: { type: "string" } };
    expect(itemType(list, undefined).type).toEqual({ type: ["string", "null"] });
    expect(elementType(list, undefined)).toEqual({ type: "string" });
    expect(elementType({ type: ["array", "null"], items: { type: "integer" } }, undefined)).toEqual({
      type: "integer",
    });
    expect(elementType({ anyOf: [{ type: "null" }, list] }, undefined)).toEqual({ type: "string" });
  });

  it("refuses indexing a non-array by number", () => {
    expect(itemType({ type: "integer" }, undefined, "input.n").problem?.what).toBe(
      "cannot index input.n with a number: it is integer",
    );
  });
});
