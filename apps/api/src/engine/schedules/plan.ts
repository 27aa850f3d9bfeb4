// Which calendar fire times a pass runs for one schedule, and where its next fire moves
// (docs/schedules.md "Catch-up"). Pure: the caller holds the schedule's row lock.
import { type Calendar, dueAt, nextFireAfter } from "./calendar.js";
import type { FireTime } from "./fire.js";

export interface CalendarPlan {
  fires: FireTime[];
  /** Runs of fire times that were not fired: outside the catch-up window, or beyond its bound. */
  missed: Array<{ from: number; reason: string }>;
  nextFireAt: number | null;
  nextDueAt: number | null;
}

export interface PlanInput {
  name: string;
  calendar: Calendar;
  jitterMs: number;
  catchupWindowMs: number;
  nextFireAt: number;
  now: number;
  /** The most fire times this schedule may run now (the catch-up bound, or what is left of the pass's). */
  most: number;
  /** The catch-up bound itself: when it (not the pass) cut the fires short, the rest up to now are missed. */
  catchupFires: number;
}

export function planCalendarFires(input: PlanInput): CalendarPlan {
  const { name, calendar, jitterMs, now } = input;
  const missed: CalendarPlan["missed"] = [];
  let at: number | null = input.nextFireAt;
  const windowStart = now - input.catchupWindowMs;
  if (at < windowStart) {
    const first = at;
    at = nextFireAfter(calendar, windowStart - 1);
    missed.push({
      from: first,
      reason: `the fire times from ${iso(first)} to ${iso(windowStart)} were more than the catch-up window before now (${iso(now)}) and did not run`,
    });
  }
  const fires: FireTime[] = [];
  while (at !== null && at <= now && fires.length < input.most) {
    const due = dueAt(name, at, jitterMs);
    if (due > now) break;
    fires.push({ fireAt: at, dueAt: due, origin: "scheduled" });
    at = nextFireAfter(calendar, at);
  }
  if (fires.length >= input.catchupFires && at !== null && at <= now) {
    missed.push({
      from: at,
      reason: `${fires.length} fire times ran in this catch-up (--limit-schedule-catchup-fires); the later ones up to ${iso(now)} did not run`,
    });
    at = nextFireAfter(calendar, now);
  }
  return { fires, missed, nextFireAt: at, nextDueAt: at === null ? null : dueAt(name, at, jitterMs) };
}

function iso(at: number): string {
  return new Date(at).toISOString();
}
