import { UsageError } from "./cli-error.js";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "250ms", "30s", "5m", "1h30m", "2d"; a bare number means seconds. */
export function parseDuration(text: string, flag: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let end = 0;
  for (let match = part.exec(trimmed); match; match = part.exec(trimmed)) {
    total += Number(match[1]) * UNIT_MS[match[2]];
    end = part.lastIndex;
  }
  if (trimmed === "" || end !== trimmed.length) {
    throw new UsageError(
      `${flag}: invalid duration "${text}": expected a number of seconds or units like 250ms, 30s, 5m, 1h30m, 2d`,
    );
  }
  return Math.round(total);
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
