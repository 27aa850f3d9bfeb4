import { parseDurationWithUnit } from "@baton/model/duration";

/**
 * A config duration: the language's grammar with a unit (`12h`, `90m`, `1h30m`, `1d`, `1.5h`;
 * docs/language.md "Timeouts, durations and times"). Milliseconds, or null when the text is not one.
 */
export function parseDuration(text: string): number | null {
  try {
    return parseDurationWithUnit(text);
  } catch {
    return null;
  }
}
