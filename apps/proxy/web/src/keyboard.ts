// The keyboard (docs/ui.md "Keyboard"): after a navigation focus goes to the new page's
// heading (never <body>, which sends Tab back through the header); `/` focuses the page's
// search field; `j` and `k` move through the rows of the page's main list.

import { useEffect, useRef } from "react";

/** The page's search field: the one marked `data-shortcut="search"`, else its first search input. */
const SEARCH = '[data-shortcut="search"], main input[type="search"]';
/** The rows `j`/`k` move through: a list's rows that name an instance. */
const ROWS = "main tbody tr[data-instance]";

/** Typing into a field must never trigger a shortcut. */
function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName);
}

/** The row that holds focus now, or -1. */
function currentRow(rows: HTMLElement[]): number {
  const active = document.activeElement;
  return rows.findIndex((row) => row === active || row.contains(active));
}

function focusRow(row: HTMLElement) {
  // The row's first link (Enter opens it); a row without one takes focus itself.
  const target = row.querySelector<HTMLElement>("a[href], button") ?? row;
  if (target === row) row.tabIndex = -1;
  target.focus();
  row.scrollIntoView({ block: "nearest" });
}

/**
 * Moves focus to the heading of the page `where` names, once it is drawn (a page may show its
 * heading only after its data arrives: it is looked for on each frame for about a second).
 */
export function useFocusHeading(where: string) {
  const first = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `where` is what a navigation changes; the effect reads the DOM
  useEffect(() => {
    // The first page of a visit keeps the browser's own start (the skip link comes first).
    if (first.current) {
      first.current = false;
      return;
    }
    let frames = 0;
    let handle = 0;
    const look = () => {
      const heading = document.querySelector<HTMLElement>("main h1");
      if (heading) {
        heading.tabIndex = -1;
        heading.focus({ preventScroll: false });
        return;
      }
      if (frames++ < 60) handle = requestAnimationFrame(look);
    };
    handle = requestAnimationFrame(look);
    return () => cancelAnimationFrame(handle);
  }, [where]);
}

/** `/` to search, `j`/`k` through the rows; none while typing or with a modifier key. */
export function useShortcuts() {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
      if (event.key === "/") {
        const field = document.querySelector<HTMLElement>(SEARCH);
        if (!field) return;
        event.preventDefault();
        field.focus();
        return;
      }
      if (event.key !== "j" && event.key !== "k") return;
      const rows = [...document.querySelectorAll<HTMLElement>(ROWS)];
      if (rows.length === 0) return;
      event.preventDefault();
      const at = currentRow(rows);
      const next = event.key === "j" ? (at < 0 ? 0 : Math.min(at + 1, rows.length - 1)) : Math.max(at - 1, 0);
      focusRow(rows[next]!);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
}
