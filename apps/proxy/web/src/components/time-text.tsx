// The one way the UI shows a time (docs/ui.md "Times"): the browser's locale date and time, in
// the browser's time zone or in UTC as chosen in the header, then how long ago or how far ahead
// it is, with the exact ISO value on hover.

import { setTimeZoneChoice, type TimeZoneChoice, useTimeZoneChoice } from "../time-zone.js";

const UNITS: [number, string][] = [
  [86_400_000, "d"],
  [3_600_000, "h"],
  [60_000, "min"],
  [1000, "s"],
];

/** "3 min ago", "in 2 h", "just now" (under 5 s): the largest unit that fits, rounded down. */
export function relativeTime(ms: number, now: number): string {
  const delta = ms - now;
  const size = Math.abs(delta);
  if (size < 5000) return "just now";
  const [unit, name] = UNITS.find(([u]) => size >= u) ?? UNITS[UNITS.length - 1];
  const amount = `${Math.floor(size / unit)} ${name}`;
  return delta < 0 ? `${amount} ago` : `in ${amount}`;
}

/** A timestamp (ISO string or unix ms) in the browser's locale and relative to now; the exact ISO value on hover. */
export function TimeText({ iso }: { iso: string | number | null | undefined }) {
  const zone = useTimeZoneChoice();
  if (iso === null || iso === undefined || iso === "") return <span className="muted">—</span>;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <time>{String(iso)}</time>;
  const exact = date.toISOString();
  const shown = zone === "utc" ? `${date.toLocaleString(undefined, { timeZone: "UTC" })} UTC` : date.toLocaleString();
  return (
    <time dateTime={exact} title={exact}>
      {shown} <span className="relative">({relativeTime(date.getTime(), Date.now())})</span>
    </time>
  );
}

/** The header's choice of local or UTC times, remembered in the browser. */
export function TimeZoneSwitch() {
  const zone = useTimeZoneChoice();
  return (
    <label className="time-zone">
      Times
      <select value={zone} onChange={(e) => setTimeZoneChoice(e.target.value as TimeZoneChoice)}>
        <option value="local">local</option>
        <option value="utc">UTC</option>
      </select>
    </label>
  );
}
