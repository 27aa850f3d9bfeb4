import type { Timeout } from "../definition.js";
import { durationProblem, isDynamicDuration } from "../duration.js";
import { describeKind, isPlainObject } from "../json-kind.js";
import { joinPath } from "../problems.js";
import { untilInstant } from "../until.js";
import { report, rejectUnknownFields, type Scope } from "./scope.js";

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const WALL_CLOCK = /^(\d{4}-\d{2}-\d{2}T)?\d{2}:\d{2}(:\d{2})?$/;

export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** A `for` duration: static durations must parse; `$: expr` is evaluated by the engine. */
export function decodeFor(sc: Scope, raw: unknown, path: string): string | number | undefined {
  const problem = durationProblem(raw, true);
  if (problem !== undefined) {
    report(sc, path, problem);
    return undefined;
  }
  return typeof raw === "string" ? raw.trim() : (raw as number);
}

/**
 * `until` (RFC 3339 with an offset, a wall-clock `YYYY-MM-DDTHH:MM[:SS]` or daily `HH:MM[:SS]`
 * in `tz`, or `$: expr`) plus its `tz`. A wall-clock time without `tz` is refused rather than
 * silently read as UTC.
 */
export function checkUntil(sc: Scope, until: unknown, tz: unknown, path: string): void {
  if (typeof until !== "string") {
    report(sc, joinPath(path, "until"), `expected an RFC 3339 time or a wall-clock time, got ${describeKind(until)}`);
    return;
  }
  if (tz !== undefined) {
    if (typeof tz !== "string")
      report(sc, joinPath(path, "tz"), `expected an IANA time zone name, got ${describeKind(tz)}`);
    else if (!isValidTimeZone(tz))
      report(sc, joinPath(path, "tz"), `unknown time zone "${tz}"; expected an IANA name like "Europe/Paris"`);
  }
  if (isDynamicDuration(until)) return;
  if (RFC3339.test(until)) {
    if (Number.isNaN(Date.parse(until))) report(sc, joinPath(path, "until"), `"${until}" is not a valid date and time`);
    else if (tz !== undefined)
      report(sc, joinPath(path, "tz"), `tz applies only to a wall-clock time; "${until}" already has an offset`);
    return;
  }
  if (WALL_CLOCK.test(until)) {
    try {
      untilInstant(until, "UTC", 0);
      if (tz === undefined)
        report(sc, joinPath(path, "until"), `wall-clock time "${until}" needs tz (an IANA name like "Europe/Paris")`);
    } catch (e) {
      report(sc, joinPath(path, "until"), (e as Error).message);
    }
    return;
  }
  report(
    sc,
    joinPath(path, "until"),
    `invalid time "${until}"; expected RFC 3339 ("2026-01-31T09:00:00Z"), a wall-clock time in tz ("2026-01-31T09:00", "09:00") or "$: expr"`,
  );
}

/** A task/action timeout: shorthand duration → `{for}`; `until` only where `allowUntil`. */
export function decodeTimeout(sc: Scope, raw: unknown, path: string, allowUntil: boolean): Timeout | undefined {
  if (typeof raw === "string" || typeof raw === "number") {
    const f = decodeFor(sc, raw, path);
    return f === undefined ? undefined : { for: f };
  }
  if (!isPlainObject(raw)) {
    report(
      sc,
      path,
      `expected a duration or ${allowUntil ? "{for} or {until, tz?}" : "{for}"}, got ${describeKind(raw)}`,
    );
    return undefined;
  }
  rejectUnknownFields(sc, raw, allowUntil ? ["for", "until", "tz"] : ["for"], path, (k) =>
    !allowUntil && (k === "until" || k === "tz") ? "a fetch timeout accepts only for" : undefined,
  );
  const out: Timeout = {};
  if (raw.for !== undefined) {
    const f = decodeFor(sc, raw.for, joinPath(path, "for"));
    if (f !== undefined) out.for = f;
  }
  if (allowUntil) {
    if (raw.for !== undefined && raw.until !== undefined) report(sc, path, "give either for or until, not both");
    if (raw.for !== undefined && raw.tz !== undefined) report(sc, joinPath(path, "tz"), "tz applies only to until");
    if (raw.until !== undefined) {
      checkUntil(sc, raw.until, raw.for === undefined ? raw.tz : undefined, path);
      if (typeof raw.until === "string") out.until = raw.until;
      if (typeof raw.tz === "string") out.tz = raw.tz;
    }
  }
  if (raw.for === undefined && raw.until === undefined)
    report(sc, path, allowUntil ? "a timeout needs for or until" : "a timeout needs for");
  return out;
}
