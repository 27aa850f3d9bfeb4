// Durations (docs/language.md "Timeouts, durations and times"): "250ms", "30s", "2h30m", "1d", a bare number of ms.
// "$: expr" durations are evaluated by the engine at run time; parseDuration refuses them.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const UNIT_ORDER = ["d", "h", "m", "s", "ms"];
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;

export function isDynamicDuration(text: string | number): boolean {
  return typeof text === "string" && text.trimStart().startsWith("$:");
}

/**
 * The longest duration anything accepts: 100 years. A wait's due time is stored as unix ms in a
 * bigint column and computed as a JavaScript number; a longer duration would overflow one or
 * lose precision in the other (docs/limits.md "Durations").
 */
export const MAX_DURATION_MS = 36_500 * 86_400_000;

/** Problem text when `ms` is longer than MAX_DURATION_MS, else undefined. */
export function durationTooLong(ms: number): string | undefined {
  return ms > MAX_DURATION_MS ? `is longer than the maximum duration of 36500d (100 years)` : undefined;
}

/** Milliseconds; throws an Error saying what was wrong and what is expected. */
export function parseDuration(text: string | number): number {
  if (typeof text === "number") {
    if (!Number.isFinite(text) || text < 0)
      throw new Error(`duration ${text} must be a non-negative number of milliseconds`);
    return bounded(text, Math.round(text));
  }
  if (typeof text !== "string") throw new Error(`a duration must be a string like "30s" or a number of milliseconds`);
  if (isDynamicDuration(text)) throw new Error(`duration "${text}" is an expression; only the engine can evaluate it`);
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return bounded(text, Math.round(Number(s)));
  if (s === "")
    throw new Error(`duration is empty; expected e.g. "250ms", "30s", "2h30m", "1d" or a number of milliseconds`);
  let total = 0;
  let pos = 0;
  let lastUnit = -1;
  PART.lastIndex = 0;
  while (pos < s.length) {
    PART.lastIndex = pos;
    const m = PART.exec(s);
    if (m === null) throw new Error(badDuration(text));
    const unitIndex = UNIT_ORDER.indexOf(m[2]);
    if (unitIndex <= lastUnit)
      throw new Error(`${badDuration(text)} (units must go from largest to smallest, each once)`);
    lastUnit = unitIndex;
    total += Number(m[1]) * UNIT_MS[m[2]];
    pos = PART.lastIndex;
  }
  return bounded(text, Math.round(total));
}

/**
 * A duration a person types where no unit is implied — a CLI or server flag, the proxy's config
 * (docs/language.md "Timeouts, durations and times"): the language's grammar with a unit
 * required, since a bare number (milliseconds in a definition) reads as seconds to most people.
 * `0` needs none. Throws an Error saying what was wrong and what is expected.
 */
export function parseDurationWithUnit(text: string): number {
  const s = text.trim();
  if (/^0+(\.0+)?$/.test(s)) return 0;
  if (/^\d+(\.\d+)?$/.test(s))
    throw new Error(`duration "${text}" has no unit; write e.g. "${s}s" or "${s}ms" (units: ms, s, m, h, d)`);
  const bad = `invalid duration "${text}"; expected a number with a unit, e.g. "250ms", "30s", "1h30m", "2d"`;
  if (s === "" || isDynamicDuration(s)) throw new Error(bad);
  try {
    return parseDuration(s);
  } catch (error) {
    const message = (error as Error).message;
    if (!message.startsWith("invalid duration")) throw error;
    throw new Error(message.endsWith(")") ? `${bad} ${message.slice(message.lastIndexOf("("))}` : bad);
  }
}

function bounded(text: string | number, ms: number): number {
  const problem = durationTooLong(ms);
  if (problem !== undefined) throw new Error(`duration ${typeof text === "string" ? `"${text}"` : text} ${problem}`);
  return ms;
}

function badDuration(text: string): string {
  return `invalid duration "${text}"; expected e.g. "250ms", "30s", "2h30m", "1d" or a number of milliseconds`;
}

/** Problem text for a static duration, or undefined when it parses. */
export function durationProblem(value: unknown, allowDynamic: boolean): string | undefined {
  if (typeof value !== "string" && typeof value !== "number")
    return `expected a duration like "30s" or a number of milliseconds, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`;
  if (isDynamicDuration(value)) return allowDynamic ? undefined : `duration "${value}" cannot be an expression here`;
  try {
    parseDuration(value);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
