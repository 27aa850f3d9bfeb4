// Local or UTC times (docs/ui.md "Times"): one choice for the whole UI, kept in the browser's
// localStorage so it survives a reload and applies to every tab opened later.

import { useSyncExternalStore } from "react";

export type TimeZoneChoice = "local" | "utc";

const KEY = "baton.times";
const listeners = new Set<() => void>();

function read(): TimeZoneChoice {
  try {
    return localStorage.getItem(KEY) === "utc" ? "utc" : "local";
  } catch {
    return "local"; // storage refused (a privacy mode): local, as before any choice
  }
}

let current: TimeZoneChoice = typeof localStorage === "undefined" ? "local" : read();

export function setTimeZoneChoice(choice: TimeZoneChoice): void {
  current = choice;
  try {
    localStorage.setItem(KEY, choice);
  } catch {
    // not remembered, but still applied in this tab
  }
  for (const listener of listeners) listener();
}

/** The choice now; every TimeText re-renders when it changes. */
export function useTimeZoneChoice(): TimeZoneChoice {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
  );
}
