import { describe, expect, it } from "vitest";
import { parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it("reads single and composite durations in milliseconds", () => {
    expect(parseDuration("12h")).toBe(43_200_000);
    expect(parseDuration("1m")).toBe(60_000);
    expect(parseDuration("30s")).toBe(30_000);
    expect(parseDuration("90m")).toBe(5_400_000);
    expect(parseDuration("1h30m15s")).toBe(5_415_000);
    expect(parseDuration("250ms")).toBe(250);
  });

  it("reads days and decimals, as every Baton duration does", () => {
    expect(parseDuration("1d")).toBe(86_400_000);
    expect(parseDuration("1.5h")).toBe(5_400_000);
  });

  it("returns null for anything else", () => {
    for (const text of ["", "12", "h", "-1m", "1 h", "12H", "1m 30s", "30m1h"])
      expect(parseDuration(text), text).toBeNull();
  });
});
