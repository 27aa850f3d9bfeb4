import { describe, expect, it } from "vitest";
import { type Json, LosslessNumber, parseJson } from "./json.js";
import { deepEqual, describeValue, kindOf, renderValue, setKey } from "./values.js";

describe("deepEqual", () => {
  it("compares numbers by decimal value", () => {
    expect(deepEqual(1, 1.0)).toBe(true);
    expect(deepEqual(new LosslessNumber("1.50"), 1.5)).toBe(true);
    expect(deepEqual(1, "1"), "no coercion between types").toBe(false);
  });

  it("compares arrays element by element and objects regardless of key order", () => {
    expect(deepEqual([1, [2, { a: null }]], [1, [2, { a: null }]])).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: null }), "a missing key is not a null key for equality").toBe(false);
    expect(deepEqual({ a: 1 }, { b: 1 })).toBe(false);
    expect(deepEqual([], {})).toBe(false);
    expect(deepEqual(null, {})).toBe(false);
  });

  it("compares big numbers from parsed JSON exactly", () => {
    const a = parseJson('{"n": 12345678901234567890}');
    const b = parseJson('{"n": 12345678901234567891}');
    expect(deepEqual(a, a)).toBe(true);
    expect(deepEqual(a, b)).toBe(false);
  });
});

describe("renderValue", () => {
  it.each<[Json, string]>([
    ["text", "text"],
    [3, "3"],
    [0.5, "0.5"],
    [1e21, "1000000000000000000000"],
    [new LosslessNumber("12345678901234567890"), "12345678901234567890"],
    [true, "true"],
    [null, "null"],
    [[1, "a"], '[1,"a"]'],
    [{ a: { b: 1 } }, '{"a":{"b":1}}'],
  ])("renders %j as %s", (value, rendered) => {
    expect(renderValue(value)).toBe(rendered);
  });
});

describe("kindOf and describeValue", () => {
  it("name values for error messages", () => {
    expect(kindOf(new LosslessNumber("1"))).toBe("number");
    expect(describeValue("x".repeat(50))).toBe(`the string "${"x".repeat(40)}…"`);
    expect(describeValue(2)).toBe("the number 2");
    expect(describeValue([])).toBe("an array");
    expect(describeValue({})).toBe("an object");
  });
});

describe("setKey", () => {
  it("stores __proto__ as an own key instead of changing the prototype", () => {
    const target: { [k: string]: Json } = {};
    setKey(target, "__proto__", { polluted: true });
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(Object.keys(target)).toEqual(["__proto__"]);
  });
});
