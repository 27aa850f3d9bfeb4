/**
 * The service clock: real time plus an offset that `/tick advance_ms` moves forward.
 * Every timestamp the service writes or compares comes from here (never SQL now()), so a
 * shifted clock expires leases and retry timers everywhere at once.
 */
export interface Clock {
  now(): number;
  /** Moves the offset forward (cumulative). */
  advance(ms: number): void;
  offset(): number;
}

export function createClock(realNow: () => number = Date.now): Clock {
  let offset = 0;
  return {
    now: () => realNow() + offset,
    advance: (ms) => {
      offset += ms;
    },
    offset: () => offset,
  };
}
