import { parseDurationWithUnit } from "@baton/model/duration";
import { UsageError } from "./cli-error.js";

/**
 * A duration flag: the language's grammar ("250ms", "30s", "1h30m", "2d"; docs/language.md
 * "Timeouts, durations and times") with a unit required (`0` needs none).
 */
export function parseDuration(text: string, flag: string): number {
  try {
    return parseDurationWithUnit(text);
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`);
  }
}

/** `--since`: a duration back from now, or an ISO 8601 timestamp; returns unix ms. */
export function parseSince(text: string, now: number): number {
  if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    const at = Date.parse(text);
    if (Number.isNaN(at))
      throw new UsageError(`--since: invalid timestamp "${text}": expected ISO 8601 like 2026-01-31T12:00:00Z`);
    return at;
  }
  return now - parseDuration(text, "--since");
}

export function formatElapsed(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.floor(ms / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  return hours > 0 ? `${hours}h${String(minutes).padStart(2, "0")}m` : `${minutes}m${String(rest).padStart(2, "0")}s`;
}
