import { describe, expect, it } from "vitest";
import { isSubschema } from "./subschema.js";

const obj = (properties: Record<string, unknown>, required: string[] = [], extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  required,
  ...extra,
});
const paths = (r: ReturnType<typeof isSubschema>) => r.issues.map((i) => `${i.certain ? "!" : "?"}${i.path}`);

describe("isSubschema", () => {
  it("accepts anything into {} and refuses an unknown value into a constrained schema", () => {
    expect(isSubschema({ type: "string" }, {}).subset).toBe(true);
    const r = isSubschema({}, { type: "string" });
    expect(r.subset).toBe(false);
    expect(r.issues[0].message).toContain("any value");
  });

  it("compares types, treating integer as a kind of number", () => {
    expect(isSubschema({ type: "integer" }, { type: "number" }).subset).toBe(true);
    expect(paths(isSubschema({ type: "number" }, { type: "integer" }))).toEqual(["!/type"]);
    expect(isSubschema({ type: ["string", "null"] }, { type: "string" }).issues[0].message).toContain("allows null");
    expect(isSubschema({ type: "string" }, { type: ["string", "null"] }).subset).toBe(true);
  });

  it("reports a newly required property at its path", () => {
    const r = isSubschema(
      obj({ id: { type: "string" } }, ["id"]),
      obj({ id: { type: "string" }, amount: { type: "number" } }, ["id", "amount"]),
    );
    expect(r.subset).toBe(false);
    expect(paths(r)).toEqual(["!/properties/amount"]);
    expect(r.issues[0].message).toContain('requires "amount"');
  });

  it("lets the new schema add an optional property or drop a requirement", () => {
    const added = isSubschema(
      obj({ id: { type: "string" } }, ["id"]),
      obj({ id: { type: "string" }, note: { type: "string" } }),
    );
    expect(added.subset).toBe(true);
    expect(
      added.issues.map((i) => i.certain),
      "a raw value could carry a stray note the old schema stripped",
    ).toEqual([false]);
    expect(isSubschema(obj({ id: { type: "string" } }, ["id"]), obj({ id: { type: "string" } })).subset).toBe(true);
  });

  it("checks nested property types and array items", () => {
    const a = obj({ lines: { type: "array", items: obj({ qty: { type: "number" } }, ["qty"]) } }, ["lines"]);
    const b = obj({ lines: { type: "array", items: obj({ qty: { type: "integer" } }, ["qty"]) } }, ["lines"]);
    expect(paths(isSubschema(a, b))).toEqual(["!/properties/lines/items/properties/qty/type"]);
    expect(isSubschema(b, a).subset).toBe(true);
  });

  it("compares bounds: a narrowed range is not a subset, a widened one is", () => {
    expect(paths(isSubschema({ type: "integer", minimum: 0 }, { type: "integer", minimum: 1 }))).toEqual(["!/minimum"]);
    expect(
      isSubschema({ type: "integer", minimum: 1, maximum: 5 }, { type: "integer", minimum: 0, maximum: 9 }).subset,
    ).toBe(true);
    expect(paths(isSubschema({ type: "string" }, { type: "string", maxLength: 10 }))).toEqual(["!/maxLength"]);
    expect(paths(isSubschema({ type: "array", minItems: 0 }, { type: "array", minItems: 1 }))).toEqual(["!/minItems"]);
    expect(
      isSubschema({ type: "string" }, { type: ["string", "integer"], minimum: 3 }).subset,
      "bounds of another type do not apply",
    ).toBe(true);
  });

  it("checks enums value by value", () => {
    expect(isSubschema({ enum: ["a", "b"] }, { enum: ["a", "b", "c"] }).subset).toBe(true);
    const r = isSubschema({ enum: ["a", "d"] }, { enum: ["a", "b"] });
    expect(r.subset).toBe(false);
    expect(r.issues[0].message).toContain('"d"');
    expect(isSubschema({ type: "string" }, { type: "string", enum: ["a"] }).subset).toBe(false);
    expect(isSubschema({ type: "boolean" }, { enum: [true, false] }).subset, "booleans are finitely many").toBe(true);
  });

  it("handles additionalProperties on either side", () => {
    const closed = { type: "object", properties: {}, additionalProperties: false };
    expect(isSubschema(closed, obj({ a: { type: "string" } })).subset).toBe(true);
    expect(paths(isSubschema(obj({ a: { type: "string" } }), closed))).toEqual([
      "!/properties/a",
      "!/additionalProperties",
    ]);
    const map = (v: unknown) => ({ type: "object", additionalProperties: v });
    expect(isSubschema(map({ type: "integer" }), map({ type: "number" })).subset).toBe(true);
    expect(paths(isSubschema(map({ type: "number" }), map({ type: "integer" })))).toEqual([
      "!/additionalProperties/type",
    ]);
  });

  it("splits unions: every alternative of the old schema must fit", () => {
    const a = { anyOf: [{ type: "string" }, { type: "integer" }] };
    expect(isSubschema(a, { type: ["string", "number"] }).subset).toBe(true);
    expect(isSubschema(a, { type: "string" }).subset).toBe(false);
  });

  it("finds an alternative of the new schema for each type of the old one", () => {
    const b = { anyOf: [{ type: "string" }, obj({ n: { type: "integer" } }, ["n"])] };
    expect(isSubschema({ type: "string" }, b).subset).toBe(true);
    expect(
      isSubschema({ type: ["string", "object"], properties: { n: { type: "integer" } }, required: ["n"] }, b).subset,
    ).toBe(true);
    expect(isSubschema({ type: "integer" }, b).subset).toBe(false);
  });

  it("doubts rather than claims when oneOf alternatives may overlap", () => {
    const b = { oneOf: [{ type: "number" }, { type: "integer", minimum: 0 }] };
    const r = isSubschema({ type: "number" }, b);
    expect(r.subset).toBe(true);
    expect(
      r.issues.some((i) => !i.certain),
      "overlapping oneOf branches would refuse a value matching both",
    ).toBe(true);
    expect(isSubschema({ type: "string" }, { oneOf: [{ type: "string" }, { type: "integer" }] }).issues).toEqual([]);
  });

  it("follows $ref through each side's defs, including recursive ones", () => {
    const tree = { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } } };
    const defs = { node: tree };
    expect(isSubschema({ $ref: "#/$defs/node" }, { $ref: "#/$defs/node" }, { aDefs: defs, bDefs: defs }).subset).toBe(
      true,
    );
    const strict = { node: { ...tree, required: ["kids"] } };
    expect(isSubschema({ $ref: "#/$defs/node" }, { $ref: "#/$defs/node" }, { aDefs: defs, bDefs: strict }).subset).toBe(
      false,
    );
    const missing = isSubschema({ $ref: "#/$defs/nope" }, { type: "string" });
    expect(missing.subset).toBe(true);
    expect(missing.issues[0]).toMatchObject({ certain: false, message: expect.stringContaining("cannot resolve") });
  });

  it("ignores annotations", () => {
    expect(
      isSubschema(
        { type: "string", description: "x", default: "a" },
        { type: "string", description: "y", secret: true },
      ).issues,
    ).toEqual([]);
  });
});
