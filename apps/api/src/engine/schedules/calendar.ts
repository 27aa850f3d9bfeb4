// When a schedule fires (docs/schedules.md "Time"): its cron expressions, read by croner in the
// schedule's time zone, and its fixed interval, within start_at and end_at. Pure: no I/O.
import { createHash } from "node:crypto";
import { Cron } from "croner";
import type { FieldProblem } from "../../refusal.js";

/** The calendar part of a stored schedule spec, durations already in ms. */
export interface CalendarSpec {
  cron: readonly string[];
  everyMs: number | null;
  /** Where the interval counts from: start_at, else when the schedule was created. */
  anchorMs: number;
  timeZone: string;
  startAt: number | null;
  endAt: number | null;
}

export interface Calendar {
  readonly spec: CalendarSpec;
  readonly crons: readonly Cron[];
}

/** The least interval accepted: a fixed interval shorter than this is refused. */
export const MIN_EVERY_MS = 1000;

// A wall-clock time that repeats (the clocks fall back) fires once: a cron time whose local time is
// not later than the previous fire's is passed over. An expression that fires every second passes
// over at most an hour of times, once a year; the bound only guards against a zone that jumps back
// further than any real one.
const MAX_PASSED_OVER = 100_000;

/** Compiles a calendar; the problems name the field (`body.cron[1]`, `body.time_zone`). */
export function compileCalendar(spec: CalendarSpec): { calendar?: Calendar; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  if (!isTimeZone(spec.timeZone))
    problems.push({
      path: "body.time_zone",
      message: `"${spec.timeZone}" is not an IANA time zone name; expected e.g. "UTC", "Europe/Berlin", "America/New_York"`,
    });
  if (spec.cron.length === 0 && spec.everyMs === null)
    problems.push({
      path: "body",
      message: "a schedule needs `cron` (one or more expressions) or `every` (an interval)",
    });
  if (spec.everyMs !== null && spec.everyMs < MIN_EVERY_MS)
    problems.push({ path: "body.every", message: `the interval must be at least 1s; got ${spec.everyMs} ms` });
  if (spec.startAt !== null && spec.endAt !== null && spec.endAt <= spec.startAt)
    problems.push({ path: "body.end_at", message: "end_at must be later than start_at" });
  const crons: Cron[] = [];
  if (problems.length > 0) return { problems };
  spec.cron.forEach((pattern, i) => {
    try {
      crons.push(cronOf(pattern, spec.timeZone));
    } catch (error) {
      problems.push({
        path: `body.cron[${i}]`,
        message: `"${pattern}" is not a cron expression Baton reads: ${(error as Error).message}`,
      });
    }
  });
  if (problems.length > 0) return { problems };
  return { calendar: { spec, crons }, problems };
}

function cronOf(pattern: string, timeZone: string): Cron {
  // "no-wildcard": a time named in the expression (a list or range included) fires after a DST
  // gap that swallowed it (docs/schedules.md "Time").
  // UTC has no daylight saving: a fixed offset gives the same times without croner's Intl
  // conversions (77 µs a nextRun instead of 371 µs, docs/performance.md "Schedules").
  const zone = isUtc(timeZone) ? { utcOffset: 0 } : { timezone: timeZone };
  return new Cron(pattern, { ...zone, paused: true, mode: "5-or-6-parts", fixedTimeRule: "no-wildcard" });
}

/** The first fire time strictly after `after`, or null when the calendar has no more. */
export function nextFireAfter(calendar: Calendar, after: number): number | null {
  const { spec } = calendar;
  const from = spec.startAt !== null && spec.startAt - 1 > after ? spec.startAt - 1 : after;
  let best: number | null = null;
  const wallFrom = spec.cron.length > 0 ? wallClock(after, spec.timeZone) : "";
  for (const cron of calendar.crons) {
    const next = nextCron(cron, from, wallFrom, spec.timeZone);
    if (next !== null && (best === null || next < best)) best = next;
  }
  if (spec.everyMs !== null) {
    const k = from < spec.anchorMs ? 0 : Math.floor((from - spec.anchorMs) / spec.everyMs) + 1;
    const next = spec.anchorMs + k * spec.everyMs;
    if (best === null || next < best) best = next;
  }
  if (best === null || (spec.endAt !== null && best > spec.endAt)) return null;
  return best;
}

function nextCron(cron: Cron, from: number, wallFrom: string, zone: string): number | null {
  let at = cron.nextRun(new Date(from));
  for (let passed = 0; at !== null && passed < MAX_PASSED_OVER; passed++) {
    if (wallClock(at.getTime(), zone) > wallFrom) return at.getTime();
    at = cron.nextRun(at);
  }
  return null;
}

/** Up to `count` fire times after `after`, in order. */
export function nextFireTimes(calendar: Calendar, after: number, count: number): number[] {
  const out: number[] = [];
  let at: number | null = after;
  while (out.length < count) {
    at = nextFireAfter(calendar, at);
    if (at === null) break;
    out.push(at);
  }
  return out;
}

/**
 * When a fire time is due: `jitterMs` at most after it, the same offset for the same schedule
 * and fire time on every replica and after every restart.
 */
export function dueAt(name: string, fireAt: number, jitterMs: number): number {
  if (jitterMs <= 0) return fireAt;
  const digest = createHash("sha256").update(`${name}\u0000${fireAt}`).digest();
  return fireAt + (digest.readUInt32BE(0) % (jitterMs + 1));
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** The local wall-clock time of `at` in `zone`, as sortable text ("2026-11-01 01:30:00.000"). */
export function wallClock(at: number, zone: string): string {
  if (isUtc(zone)) {
    const iso = new Date(at).toISOString();
    return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
  }
  let format = formats.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("sv-SE", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      fractionalSecondDigits: 3,
      hourCycle: "h23",
    });
    formats.set(zone, format);
  }
  const part: Record<string, string> = {};
  for (const { type, value } of format.formatToParts(new Date(at))) part[type] = value;
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second}.${part.fractionalSecond}`;
}

function isUtc(zone: string): boolean {
  return zone === "UTC" || zone === "Etc/UTC";
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
