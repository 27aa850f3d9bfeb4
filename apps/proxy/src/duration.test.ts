import { describe, expect, it } from "vitest";
import { parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it("reads single and composite Go-style durations in milliseconds", () => {
    expect(parseDuration("12h")).toBe(43_200_000);
    expect(parseDuration("1m")).toBe(60_000);
    expect(parseDuration("30s")).toBe(30_000);
    expect(parseDuration("90m")).toBe(5_400_000);
    expect(parseDuration("1h30m15s")).toBe(5_415_000);
    expect(parseDuration("250ms")).toBe(250);
  });

  it("returns null for anything else", () => {
    for (const text of ["", "12", "h", "1.5h", "-1m", "1 h", "1d", "12H", "1m 30s"])
      expect(parseDuration(text), text).toBeNull();
  });
});
