// Loading data for a view. Refreshes keep showing the previous data until the new answer is
// in (no flicker); polling runs only while the tab is visible and never overlaps itself.

import { useCallback, useEffect, useRef, useState } from "react";

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  /** Fetch again now (after a change made from the UI). */
  reload: () => void;
}

export const POLL_MS = 3000;

/**
 * Statuses in which the engine changes nothing by itself: a page showing only instances in
 * these does not poll (docs/ui.md "Live refresh"). `failed` changes only by an operator's
 * retry, and a retry made from the UI reloads its view.
 */
export const SETTLED_STATUSES: readonly string[] = ["completed", "failed", "raised", "cancelled"];

export const isSettled = (status: string | undefined): boolean =>
  status !== undefined && SETTLED_STATUSES.includes(status);

/**
 * Runs `load` when `key` changes (the data is cleared then, since it belongs to another view),
 * and every `pollMs` while the document is visible when `pollMs` is given.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, key: string, pollMs?: number): Loaded<T> {
  // The data is stored with the key it was loaded for, and shown only under that key: on the
  // render where the key changes, the previous view's data must not be shown (a page could act
  // on it, e.g. send a form for the previous task) even before any effect has run.
  const [state, setState] = useState<{ key: string; data?: T; error?: unknown }>({ key });
  const loadRef = useRef(load);
  loadRef.current = load;
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((n) => n + 1), []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: tick and key are the triggers
  useEffect(() => {
    const controller = new AbortController();
    let inFlight = false;
    let cancelled = false;
    const run = () => {
      if (inFlight || cancelled) return;
      inFlight = true;
      loadRef
        .current(controller.signal)
        .then(
          (value) => {
            if (cancelled) return;
            setState({ key, data: value });
          },
          (failure: unknown) => {
            // A failed refresh keeps the last good data of this key under the error.
            if (!cancelled) setState((s) => ({ key, data: s.key === key ? s.data : undefined, error: failure }));
          },
        )
        .finally(() => {
          inFlight = false;
        });
    };
    run();
    let timer: ReturnType<typeof setInterval> | undefined;
    const onVisibility = () => {
      if (document.visibilityState === "visible") run();
    };
    if (pollMs) {
      timer = setInterval(() => {
        if (document.visibilityState === "visible") run();
      }, pollMs);
      document.addEventListener("visibilitychange", onVisibility);
    }
    return () => {
      cancelled = true;
      controller.abort();
      if (timer) clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [key, tick, pollMs]);

  const current = state.key === key;
  return { data: current ? state.data : undefined, error: current ? state.error : undefined, reload };
}
