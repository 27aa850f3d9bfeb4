import { describe, expect, it } from "vitest";
import { type CalendarSpec, compileCalendar, dueAt, nextFireTimes, wallClock } from "./calendar.js";

function calendar(over: Partial<CalendarSpec>) {
  const spec: CalendarSpec = {
    cron: [],
    everyMs: null,
    anchorMs: 0,
    timeZone: "UTC",
    startAt: null,
    endAt: null,
    ...over,
  };
  const { calendar: compiled, problems } = compileCalendar(spec);
  if (compiled === undefined) throw new Error(JSON.stringify(problems));
  return compiled;
}

function times(over: Partial<CalendarSpec>, from: string, count: number): string[] {
  const zone = over.timeZone ?? "UTC";
  return nextFireTimes(calendar(over), Date.parse(from), count).map(
    (t) => `${new Date(t).toISOString()} ${wallClock(t, zone)}`,
  );
}

describe("schedule calendars", () => {
  it("fires a local time the clocks spring over once, at the first instant after the gap (America/New_York)", () => {
    expect(times({ cron: ["30 2 * * *"], timeZone: "America/New_York" }, "2026-03-07T12:00:00Z", 2)).toEqual([
      "2026-03-08T07:00:00.000Z 2026-03-08 03:00:00.000",
      "2026-03-09T06:30:00.000Z 2026-03-09 02:30:00.000",
    ]);
  });

  it("fires a local time the clocks spring over once, at the first instant after the gap (Europe/Berlin, a list)", () => {
    expect(times({ cron: ["30 2,14 * * *"], timeZone: "Europe/Berlin" }, "2026-03-28T14:00:00Z", 2)).toEqual([
      "2026-03-29T01:00:00.000Z 2026-03-29 03:00:00.000",
      "2026-03-29T12:30:00.000Z 2026-03-29 14:30:00.000",
    ]);
  });

  it("fires a repeated local time once when the clocks fall back (America/New_York)", () => {
    expect(times({ cron: ["*/30 * * * *"], timeZone: "America/New_York" }, "2026-11-01T04:50:00Z", 4)).toEqual([
      "2026-11-01T05:00:00.000Z 2026-11-01 01:00:00.000",
      "2026-11-01T05:30:00.000Z 2026-11-01 01:30:00.000",
      "2026-11-01T07:00:00.000Z 2026-11-01 02:00:00.000",
      "2026-11-01T07:30:00.000Z 2026-11-01 02:30:00.000",
    ]);
    expect(times({ cron: ["30 1 * * *"], timeZone: "America/New_York" }, "2026-10-31T12:00:00Z", 2)).toEqual([
      "2026-11-01T05:30:00.000Z 2026-11-01 01:30:00.000",
      "2026-11-02T06:30:00.000Z 2026-11-02 01:30:00.000",
    ]);
  });

  it("fires a repeated local hour once when the clocks fall back (Europe/Berlin)", () => {
    expect(times({ cron: ["0 * * * *"], timeZone: "Europe/Berlin" }, "2026-10-24T23:30:00Z", 4)).toEqual([
      "2026-10-25T00:00:00.000Z 2026-10-25 02:00:00.000",
      "2026-10-25T02:00:00.000Z 2026-10-25 03:00:00.000",
      "2026-10-25T03:00:00.000Z 2026-10-25 04:00:00.000",
      "2026-10-25T04:00:00.000Z 2026-10-25 05:00:00.000",
    ]);
  });

  it("fires 0 0 29 2 * on leap days only, and L on every month's last day", () => {
    expect(times({ cron: ["0 0 29 2 *"] }, "2026-01-01T00:00:00Z", 2)).toEqual([
      "2028-02-29T00:00:00.000Z 2028-02-29 00:00:00.000",
      "2032-02-29T00:00:00.000Z 2032-02-29 00:00:00.000",
    ]);
    expect(times({ cron: ["0 0 L * *"] }, "2028-01-15T00:00:00Z", 3).map((t) => t.slice(0, 10))).toEqual([
      "2028-01-31",
      "2028-02-29",
      "2028-03-31",
    ]);
  });

  it("reads W (nearest weekday) and # (nth weekday), and 6 fields with seconds", () => {
    expect(times({ cron: ["0 9 15W * *"] }, "2026-08-01T00:00:00Z", 1)[0]!.slice(0, 10)).toBe("2026-08-14");
    expect(times({ cron: ["0 9 * * MON#1"] }, "2026-08-01T00:00:00Z", 1)[0]!.slice(0, 10)).toBe("2026-08-03");
    expect(times({ cron: ["*/10 * * * * *"] }, "2026-08-01T00:00:00Z", 2)).toEqual([
      "2026-08-01T00:00:10.000Z 2026-08-01 00:00:10.000",
      "2026-08-01T00:00:20.000Z 2026-08-01 00:00:20.000",
    ]);
  });

  it("unites cron and interval, within start_at and end_at, a time both name once", () => {
    const anchor = Date.parse("2026-01-01T00:00:00Z");
    const got = times(
      { cron: ["0 * * * *"], everyMs: 40 * 60_000, anchorMs: anchor, endAt: Date.parse("2026-01-01T02:00:00Z") },
      "2025-12-31T23:59:00Z",
      10,
    );
    expect(got.map((t) => t.slice(11, 16))).toEqual(["00:00", "00:40", "01:00", "01:20", "02:00"]);
    const late = times({ everyMs: 60_000, anchorMs: anchor, startAt: anchor + 3_600_000 }, "2026-01-01T00:00:00Z", 1);
    expect(late[0]!.slice(0, 24)).toBe("2026-01-01T01:00:00.000Z");
  });

  it("refuses a bad expression, an unknown zone, a short interval, naming the field", () => {
    const base: CalendarSpec = { cron: [], everyMs: null, anchorMs: 0, timeZone: "UTC", startAt: null, endAt: null };
    expect(compileCalendar({ ...base, cron: ["0 0 * *"] }).problems[0]!.path).toBe("body.cron[0]");
    expect(compileCalendar({ ...base, cron: ["0 0 * * *"], timeZone: "Mars/Base" }).problems[0]!.path).toBe(
      "body.time_zone",
    );
    expect(compileCalendar({ ...base, everyMs: 10 }).problems[0]!.path).toBe("body.every");
    expect(compileCalendar(base).problems[0]!.message).toMatch(/needs `cron`/);
  });

  it("puts the same jitter on the same fire time, within the bound", () => {
    const at = Date.parse("2026-01-01T00:00:00Z");
    expect(dueAt("nightly", at, 30_000)).toBe(dueAt("nightly", at, 30_000));
    expect(dueAt("nightly", at, 30_000) - at).toBeGreaterThanOrEqual(0);
    expect(dueAt("nightly", at, 30_000) - at).toBeLessThanOrEqual(30_000);
    expect(dueAt("nightly", at, 0)).toBe(at);
  });
});
