// Requests whose body is large are handled one at a time (docs/limits.md "Requests"). Each
// costs the event loop turns in proportion to its size (parse, validate, store, the first
// advance), and the turns of requests that arrive together would run back to back, holding
// every other request for all of them. Behind this gate a large request waits (asynchronously,
// costing nothing) while another is handled, so every other request — /healthz, small ones —
// waits for at most one large request's turn.

import { acceptFirst } from "../event-loop.js";

/** A body at least this long (characters) takes a turn at the gate. */
export const LARGE_BODY_CHARS = 64 * 1024;

export interface Admission {
  /** Resolves, in arrival order, once the caller may go on; call the function it gives exactly once when done. */
  enter(): Promise<() => void>;
}

export function admission(capacity: number): Admission {
  let free = capacity;
  const waiting: Array<() => void> = [];
  const leave = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  const ticket = () => {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      leave();
    };
  };
  return {
    async enter() {
      if (free > 0) free--;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      const leave = ticket();
      // Let in, its work still comes after the connections waiting to be accepted (event-loop.ts).
      await acceptFirst();
      return leave;
    },
  };
}
