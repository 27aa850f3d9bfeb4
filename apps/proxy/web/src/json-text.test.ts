import { describe, expect, it } from "vitest";
import { jsonInline, jsonText } from "./json-text.js";

describe("jsonText", () => {
  it("indents like JSON.stringify(value, null, 2) for plain values", () => {
    const value = { a: [1, "x", null, true], b: { c: {} }, d: [] };
    expect(jsonText(value)).toBe(JSON.stringify(value, null, 2));
  });

  it("prints lossless numbers as their exact digits", () => {
    const big = { isLosslessNumber: true, value: "12345678901234567890" };
    expect(jsonText({ n: big, d: { isLosslessNumber: true, value: "0.10" } })).toBe(
      '{\n  "n": 12345678901234567890,\n  "d": 0.10\n}',
    );
  });

  it("drops undefined members the way JSON does", () => {
    expect(jsonText({ a: undefined, b: 1 })).toBe('{\n  "b": 1\n}');
  });

  it("inlines to a single line", () => {
    expect(jsonInline({ a: [1, 2] })).toBe('{ "a": [ 1, 2 ] }');
  });
});
