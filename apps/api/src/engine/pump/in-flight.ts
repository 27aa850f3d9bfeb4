/**
 * An advance (or chain of advances) this process runs under one lease. The pump keeps one map
 * of them by instance id; the loop (engine.ts), lease renewal (lease-renewal.ts) and the
 * advance runner (run-advance.ts) all read and update the same entries.
 */
export interface InFlight {
  leaseEpoch: number;
  /**
   * The lease expiry in this holder's view: always computed from a timestamp taken before the
   * statement that set it was sent, so it never exceeds the row's (docs/engine.md).
   */
  leaseUntil: number;
  abort: AbortController;
  /** Its write is queued or running: a renewal that misses the row then proves nothing. */
  writing: boolean;
  done: Promise<unknown>;
}
