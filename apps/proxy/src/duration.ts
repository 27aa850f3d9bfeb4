const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Go-style durations: one or more `<integer><unit>` parts with unit ms, s, m or h
 * (`12h`, `90m`, `1h30m`, `30s`). Returns milliseconds, or null when the text is not one.
 */
export function parseDuration(text: string): number | null {
  if (!/^(\d+(ms|s|m|h))+$/.test(text)) return null;
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)(ms|s|m|h)/g)) total += Number(n) * UNIT_MS[unit!]!;
  return Number.isSafeInteger(total) ? total : null;
}
