import { describe, expect, it } from "vitest";
import { untilInstant } from "./until.js";

const at = (iso: string) => Date.parse(iso);

describe("untilInstant", () => {
  it("reads RFC 3339 times as they are", () => {
    expect(untilInstant("2026-03-01T09:00:00+01:00", undefined, 0)).toBe(at("2026-03-01T08:00:00Z"));
    expect(untilInstant("2026-03-01T09:00:00.250Z", undefined, 0)).toBe(at("2026-03-01T09:00:00.250Z"));
  });

  it("reads a wall-clock date-time in tz, across daylight saving time", () => {
    expect(untilInstant("2026-01-15T09:00", "Europe/Paris", 0)).toBe(at("2026-01-15T08:00:00Z"));
    expect(untilInstant("2026-07-15T09:00", "Europe/Paris", 0)).toBe(at("2026-07-15T07:00:00Z"));
    expect(untilInstant("2026-07-15T09:00:30", "America/New_York", 0)).toBe(at("2026-07-15T13:00:30Z"));
    expect(untilInstant("2026-07-15T09:00", "UTC", 0)).toBe(at("2026-07-15T09:00:00Z"));
  });

  it("reads a daily time as its next occurrence after now", () => {
    const now = at("2026-01-15T07:30:00Z"); // 08:30 in Paris
    expect(untilInstant("09:00", "Europe/Paris", now)).toBe(at("2026-01-15T08:00:00Z"));
    expect(untilInstant("08:00", "Europe/Paris", now), "already past today: tomorrow").toBe(at("2026-01-16T07:00:00Z"));
    expect(untilInstant("08:30", "Europe/Paris", now), "exactly now is not in the future").toBe(
      at("2026-01-16T07:30:00Z"),
    );
  });

  it("uses the tz's date, not UTC's, for a daily time", () => {
    const now = at("2026-01-15T23:30:00Z"); // already Jan 16, 08:30 in Tokyo
    expect(untilInstant("09:00", "Asia/Tokyo", now)).toBe(at("2026-01-16T00:00:00Z"));
  });

  it("lands after the gap for a time that does not exist on a spring-forward day", () => {
    // Paris skips 02:00–03:00 on 2026-03-29.
    const t = untilInstant("2026-03-29T02:30", "Europe/Paris", 0);
    expect([at("2026-03-29T00:30:00Z"), at("2026-03-29T01:30:00Z")]).toContain(t);
  });

  it("refuses what it cannot read", () => {
    expect(() => untilInstant("09:00", undefined, 0)).toThrow(/needs tz/);
    expect(() => untilInstant("09:00", "Mars/Base", 0)).toThrow(/unknown time zone/);
    expect(() => untilInstant("2026-02-30T09:00", "UTC", 0)).toThrow(/not a valid date/);
    expect(() => untilInstant("24:00", "UTC", 0)).toThrow(/not a valid wall-clock/);
    expect(() => untilInstant("tomorrow", "UTC", 0)).toThrow(/invalid time/);
  });
});
