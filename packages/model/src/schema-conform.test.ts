import { isLosslessNumber, LosslessNumber, parseJson, stringifyJson } from "@baton/expr";
import { describe, expect, it } from "vitest";
import { conformValue } from "./schema-conform.js";

describe("conformValue", () => {
  const schema = {
    type: "object",
    properties: {
      name: { type: "string" },
      qty: { type: "integer", default: 1 },
      opts: { type: "object", properties: { fast: { type: "boolean", default: false } }, default: {} },
      lines: { type: "array", items: { type: "object", properties: { sku: { type: "string" } } } },
    },
  };

  it("fills defaults, including nested ones inside a defaulted object", () => {
    expect(conformValue(schema, { name: "x" })).toEqual({ name: "x", qty: 1, opts: { fast: false } });
  });

  it("keeps given values over defaults", () => {
    expect(conformValue(schema, { qty: 5, opts: { fast: true } })).toEqual({ qty: 5, opts: { fast: true } });
  });

  it("strips undeclared keys at every level, including array elements", () => {
    expect(
      conformValue(schema, { name: "x", junk: 1, lines: [{ sku: "a", price: 3 }], opts: { fast: true, slow: 1 } }),
    ).toEqual({
      name: "x",
      qty: 1,
      lines: [{ sku: "a" }],
      opts: { fast: true },
    });
  });

  it("keeps undeclared keys when additionalProperties is given, conforming them by it", () => {
    const s = {
      type: "object",
      properties: { a: {} },
      additionalProperties: { type: "object", properties: { k: {} } },
    };
    expect(conformValue(s, { a: 1, b: { k: 1, z: 2 } })).toEqual({ a: 1, b: { k: 1 } });
  });

  it("passes values of {} and bare object schemas on untouched", () => {
    expect(conformValue({}, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
    expect(conformValue({ type: "object" }, { a: 1 })).toEqual({ a: 1 });
  });

  it("keeps LosslessNumbers intact", () => {
    const value = parseJson('{"big": 123456789012345678901234567890, "dec": 0.10000000000000000000001}');
    const out = conformValue(
      { type: "object", properties: { big: { type: "integer" }, dec: { type: "number" } } },
      value,
    ) as Record<string, unknown>;
    expect(isLosslessNumber(out.big), "big integers must not be rounded").toBe(true);
    expect(stringifyJson(out)).toBe('{"big":123456789012345678901234567890,"dec":0.10000000000000000000001}');
  });

  it("copies LosslessNumber defaults without turning them into objects", () => {
    const out = conformValue(
      { type: "object", properties: { n: { default: new LosslessNumber("99999999999999999999") } } },
      {},
    ) as Record<string, unknown>;
    expect(isLosslessNumber(out.n)).toBe(true);
  });

  it("does not mutate its input or share default objects between calls", () => {
    const input = { name: "x", junk: true };
    const a = conformValue(schema, input) as Record<string, Record<string, unknown>>;
    expect(input).toEqual({ name: "x", junk: true });
    a.opts.fast = true;
    expect(
      (conformValue(schema, {}) as Record<string, Record<string, unknown>>).opts.fast,
      "defaults must be copied",
    ).toBe(false);
  });

  it("follows $ref through defs", () => {
    const defs = { addr: { type: "object", properties: { city: { type: "string", default: "Paris" } } } };
    expect(
      conformValue({ type: "object", properties: { home: { $ref: "#/$defs/addr" } } }, { home: { zip: "1" } }, defs),
    ).toEqual({ home: { city: "Paris" } });
  });

  it("conforms by the first oneOf branch the value fits", () => {
    const s = {
      oneOf: [
        { type: "object", properties: { kind: { enum: ["card"] }, last4: { type: "string" } }, required: ["kind"] },
        { type: "object", properties: { kind: { enum: ["bank"] }, iban: { type: "string" } }, required: ["kind"] },
      ],
    };
    expect(conformValue(s, { kind: "bank", iban: "X", last4: "1" })).toEqual({ kind: "bank", iban: "X" });
  });

  it("leaves scalars alone", () => {
    expect(conformValue({ type: "string" }, "x")).toBe("x");
    expect(conformValue({ type: "object", properties: {} }, null)).toBe(null);
  });
});

describe("conformValue with the schema's own $defs", () => {
  it("resolves references to the schema's top-level $defs, also inside oneOf branches", () => {
    const s = {
      $defs: {
        card: {
          type: "object",
          properties: { kind: { enum: ["card"] }, last4: { type: "string", default: "0000" } },
          required: ["kind"],
        },
      },
      type: "object",
      properties: { pay: { oneOf: [{ $ref: "#/$defs/card" }, { type: "string" }] } },
    };
    expect(conformValue(s, { pay: { kind: "card", x: 1 } })).toEqual({ pay: { kind: "card", last4: "0000" } });
    expect(conformValue(s, { pay: "cash" })).toEqual({ pay: "cash" });
  });
});

describe("conformValue with nullable object types", () => {
  it("conforms an object and leaves null alone", () => {
    const s = { type: ["object", "null"], properties: { a: { type: "integer", default: 1 } } };
    expect(conformValue(s, {})).toEqual({ a: 1 });
    expect(conformValue(s, null)).toBe(null);
  });
});
