// Node's setTimeout holds at most 2^31-1 ms (24.8 days); a longer delay overflows and the
// callback fires at once. A fetch timeout may be up to the longest duration the language
// accepts (100 years), so long delays are scheduled in steps.

const MAX_TIMER_MS = 2 ** 31 - 1;

export interface LongTimeout {
  cancel(): void;
}

/** Calls `fn` once after `ms`, for any `ms` a duration can hold. */
export function longTimeout(fn: () => void, ms: number): LongTimeout {
  const due = Date.now() + ms;
  let timer: NodeJS.Timeout;
  const arm = (left: number) => {
    timer = setTimeout(
      () => {
        const rest = due - Date.now();
        if (rest > 0) arm(rest);
        else fn();
      },
      Math.min(Math.max(left, 0), MAX_TIMER_MS),
    );
  };
  arm(ms);
  return { cancel: () => clearTimeout(timer) };
}
