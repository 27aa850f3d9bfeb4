import { describe, expect, it } from "vitest";
import { formatElapsed, parseDuration, parseSince } from "./duration.js";

describe("parseDuration", () => {
  it.each([
    ["250ms", 250],
    ["30s", 30_000],
    ["5m", 300_000],
    ["1h30m", 5_400_000],
    ["2d", 172_800_000],
    ["1.5s", 1500],
  ])("reads %s as %i ms", (text, ms) => {
    expect(parseDuration(text, "--timeout")).toBe(ms);
  });

  it("refuses a bare number (milliseconds in a definition, seconds to most people), naming the unit to add", () => {
    expect(() => parseDuration("30", "--timeout")).toThrow('--timeout: duration "30" has no unit; write e.g. "30s"');
    expect(parseDuration("0", "--wait"), "zero needs no unit").toBe(0);
  });

  it.each(["", "ten", "5x", "5m junk", "-3s"])("refuses %j naming the flag and the expected forms", (text) => {
    expect(() => parseDuration(text, "--timeout")).toThrow(/--timeout: invalid duration .*expected/);
  });
});

describe("parseSince", () => {
  it("counts a duration back from now", () => {
    expect(parseSince("1h", 10_000_000)).toBe(10_000_000 - 3_600_000);
  });

  it("accepts an ISO 8601 timestamp", () => {
    expect(parseSince("2026-01-31T12:00:00Z", 0)).toBe(Date.parse("2026-01-31T12:00:00Z"));
  });

  it("refuses a malformed timestamp", () => {
    expect(() => parseSince("2026-13-45Tnope", 0)).toThrow(/--since: invalid timestamp/);
  });
});

describe("formatElapsed", () => {
  it("shows tenths under a minute, then minutes and hours", () => {
    expect(formatElapsed(1234)).toBe("1.2s");
    expect(formatElapsed(125_000)).toBe("2m05s");
    expect(formatElapsed(3_725_000)).toBe("1h02m");
  });
});
