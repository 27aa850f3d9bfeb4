import { describe, expect, it } from "vitest";
import { inlineRefs } from "./schema-inline.js";
import { validateValue } from "./schema-validate.js";

describe("inlineRefs", () => {
  const defs = {
    money: { type: "integer", minimum: 0 },
    line: { type: "object", properties: { price: { $ref: "#/$defs/money" } } },
  };

  it("replaces references by the schemas they name, keeping sibling keywords", () => {
    expect(inlineRefs({ type: "array", items: { $ref: "#/$defs/line", description: "one line" } }, defs)).toEqual({
      type: "array",
      items: { type: "object", properties: { price: { type: "integer", minimum: 0 } }, description: "one line" },
    });
  });

  it("uses and drops the schema's own $defs", () => {
    expect(inlineRefs({ $defs: { id: { type: "string" } }, properties: { a: { $ref: "#/$defs/id" } } })).toEqual({
      properties: { a: { type: "string" } },
    });
  });

  it("keeps recursive references with the $defs they need", () => {
    const tree = {
      node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } },
    };
    const out = inlineRefs({ $ref: "#/$defs/node" }, tree);
    expect(out).toEqual({
      type: "object",
      properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } },
      $defs: { node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
    });
    expect(validateValue(out, { children: [{ children: [] }] })).toEqual([]);
    expect(validateValue(out, { children: [{ children: 3 }] })).not.toEqual([]);
  });

  it("leaves defaults and enums alone", () => {
    expect(inlineRefs({ default: { $ref: "x" }, enum: [{ $ref: "y" }] })).toEqual({
      default: { $ref: "x" },
      enum: [{ $ref: "y" }],
    });
  });

  it("validates the same values as the original", () => {
    const schema = { type: "object", properties: { lines: { type: "array", items: { $ref: "#/$defs/line" } } } };
    const value = { lines: [{ price: -1 }] };
    expect(validateValue(inlineRefs(schema, defs), value).length).toBe(validateValue(schema, value, defs).length);
  });
});
