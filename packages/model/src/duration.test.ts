import { describe, expect, it } from "vitest";
import { durationProblem, isDynamicDuration, parseDuration, parseDurationWithUnit } from "./duration.js";

describe("parseDuration", () => {
  it.each([
    ["250ms", 250],
    ["30s", 30_000],
    ["5m", 300_000],
    ["2h30m", 9_000_000],
    ["1d", 86_400_000],
    ["1d2h3m4s5ms", 93_784_005],
    ["1.5s", 1500],
    [" 10s ", 10_000],
    ["1500", 1500],
    [0, 0],
    [42, 42],
  ])("reads %j as %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "abc", "10x", "5 m", "-1s", "1m2h", "1s1s", "s"])(
    "refuses %j with a message naming the expected forms",
    (text) => {
      expect(() => parseDuration(text)).toThrow(/250ms|expected/);
    },
  );

  it("refuses negative and non-finite numbers", () => {
    expect(() => parseDuration(-5)).toThrow(/non-negative/);
    expect(() => parseDuration(Number.POSITIVE_INFINITY)).toThrow(/non-negative/);
  });

  it("refuses expressions, which only the engine evaluates", () => {
    expect(() => parseDuration("$: input.wait")).toThrow(/expression/);
  });

  it("says units must be ordered largest first", () => {
    expect(() => parseDuration("30s1m")).toThrow(/largest to smallest/);
  });
});

describe("isDynamicDuration", () => {
  it("is true only for $: expressions", () => {
    expect(isDynamicDuration("$: input.ms")).toBe(true);
    expect(isDynamicDuration("30s")).toBe(false);
    expect(isDynamicDuration(30)).toBe(false);
  });
});

describe("durationProblem", () => {
  it("accepts expressions only where allowed", () => {
    expect(durationProblem("$: input.ms", true)).toBeUndefined();
    expect(durationProblem("$: input.ms", false)).toMatch(/cannot be an expression/);
  });
  it("names the kind of a non-duration", () => {
    expect(durationProblem(null, true)).toMatch(/got null/);
    expect(durationProblem([1], true)).toMatch(/got an array/);
  });
});

describe("parseDurationWithUnit (flags and config: a unit required)", () => {
  it("reads the language's durations", () => {
    expect(parseDurationWithUnit("1h30m")).toBe(5_400_000);
    expect(parseDurationWithUnit("30d")).toBe(2_592_000_000);
    expect(parseDurationWithUnit("1.5s")).toBe(1500);
    expect(parseDurationWithUnit(" 250ms ")).toBe(250);
    expect(parseDurationWithUnit("0")).toBe(0);
  });

  it("refuses a bare number, naming the unit to add", () => {
    expect(() => parseDurationWithUnit("30")).toThrow('duration "30" has no unit; write e.g. "30s" or "30ms"');
  });

  it("refuses other text saying what is expected", () => {
    for (const text of ["", "ten", "5x", "-3s", "1 h", "$: 5"])
      expect(() => parseDurationWithUnit(text), text).toThrow(/^invalid duration .*expected a number with a unit/);
    expect(() => parseDurationWithUnit("30m1h")).toThrow("(units must go from largest to smallest, each once)");
    expect(() => parseDurationWithUnit("40000d")).toThrow("longer than the maximum duration");
  });
});
