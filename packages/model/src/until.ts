// The instant an `until` (delay, external timeout) stands for (docs/language.md "Timeouts, durations and times"): RFC 3339 with an
// offset, a wall-clock `YYYY-MM-DDTHH:MM[:SS]` in `tz`, or a daily `HH:MM[:SS]` in `tz` (its next
// occurrence after `now`). "$: expr" values are evaluated by the engine first.

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const LOCAL = /^(?:(\d{4})-(\d{2})-(\d{2})T)?(\d{2}):(\d{2})(?::(\d{2}))?$/;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(tz, f);
  }
  return f;
}

/** The wall-clock fields of `instant` in `tz`. */
function wallClock(
  instant: number,
  tz: string,
): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(instant)))
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  return { y: parts.year, mo: parts.month, d: parts.day, h: parts.hour, mi: parts.minute, s: parts.second };
}

/** Milliseconds `tz` is ahead of UTC at `instant`. */
function offsetAt(instant: number, tz: string): number {
  const w = wallClock(instant, tz);
  return Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s) - Math.floor(instant / 1000) * 1000;
}

/** The instant a wall-clock time in `tz` names; in a DST gap it lands just after the gap. */
function fromWallClock(y: number, mo: number, d: number, h: number, mi: number, s: number, tz: string): number {
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  const first = asUtc - offsetAt(asUtc, tz);
  const second = asUtc - offsetAt(first, tz);
  return second;
}

/** Epoch ms of `until`; throws an Error saying what was wrong. */
export function untilInstant(until: string, tz: string | undefined, now: number): number {
  if (RFC3339.test(until)) {
    const t = Date.parse(until);
    if (Number.isNaN(t)) throw new Error(`"${until}" is not a valid date and time`);
    return t;
  }
  const m = LOCAL.exec(until);
  if (m === null)
    throw new Error(
      `invalid time "${until}"; expected RFC 3339 or a wall-clock time ("2026-01-31T09:00", "09:00") in tz`,
    );
  if (tz === undefined) throw new Error(`wall-clock time "${until}" needs tz (an IANA name like "Europe/Paris")`);
  try {
    formatter(tz);
  } catch {
    throw new Error(`unknown time zone "${tz}"`);
  }
  const [h, mi, s] = [Number(m[4]), Number(m[5]), Number(m[6] ?? "0")];
  if (h > 23 || mi > 59 || s > 59) throw new Error(`"${until}" is not a valid wall-clock time`);
  if (m[1] !== undefined) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const check = new Date(Date.UTC(y, mo - 1, d));
    if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) throw new Error(`"${until}" is not a valid date`);
    return fromWallClock(y, mo, d, h, mi, s, tz);
  }
  const today = wallClock(now, tz);
  const candidate = fromWallClock(today.y, today.mo, today.d, h, mi, s, tz);
  if (candidate > now) return candidate;
  const tomorrow = new Date(Date.UTC(today.y, today.mo - 1, today.d + 1));
  return fromWallClock(tomorrow.getUTCFullYear(), tomorrow.getUTCMonth() + 1, tomorrow.getUTCDate(), h, mi, s, tz);
}
