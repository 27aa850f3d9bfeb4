import { LosslessNumber } from "@baton/expr";
import { describe, expect, it } from "vitest";
import { describeKind, isPlainObject } from "./json-kind.js";

describe("describeKind", () => {
  it("names each JSON kind as a message would", () => {
    expect([null, undefined, [], "x", 1, true, {}].map(describeKind)).toEqual([
      "null",
      "nothing",
      "an array",
      "a string",
      "a number",
      "a boolean",
      "an object",
    ]);
  });

  it("names the digits of a number too large for a float64", () => {
    expect(describeKind(new LosslessNumber("99999999999999999999"))).toBe("the number 99999999999999999999");
  });
});

describe("isPlainObject", () => {
  it("is false for arrays, null and LosslessNumbers", () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject(new LosslessNumber("1e400"))).toBe(false);
  });
});
