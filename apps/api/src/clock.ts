/**
 * The service clock: real time plus an offset that `/tick advance_ms` moves forward.
 * Every timestamp the service writes or compares comes from here (never SQL now()), so a
 * shifted clock expires leases and retry timers everywhere at once.
 */
export interface Clock {
  now(): number;
  /** Moves the offset forward (cumulative); RangeError past LATEST_CLOCK_MS, moving nothing. */
  advance(ms: number): void;
  offset(): number;
  /** How far the clock may still move forward. */
  maxAdvance(): number;
}

/**
 * The latest instant the clock may reach: ids (UUIDv7, storage/ids.ts) carry 48 bits of unix
 * ms, and a minute below that leaves room for ids that run ahead within a millisecond. A clock
 * past it would make every id, and so every start, fail: `advance` refuses to move beyond it.
 */
export const LATEST_CLOCK_MS = 2 ** 48 - 1 - 60_000;

export function createClock(realNow: () => number = Date.now): Clock {
  let offset = 0;
  const maxAdvance = () => Math.max(0, LATEST_CLOCK_MS - (realNow() + offset));
  return {
    now: () => realNow() + offset,
    advance: (ms) => {
      if (ms > maxAdvance())
        throw new RangeError(`the clock cannot move ${ms} ms forward: ${maxAdvance()} ms are left`);
      offset += ms;
    },
    offset: () => offset,
    maxAdvance,
  };
}
