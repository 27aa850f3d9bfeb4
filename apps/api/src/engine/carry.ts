import type { AdvanceResult } from "./advance/advance-types.js";
import type { LeasedRow } from "./leases.js";

/**
 * An advance computed in memory (pump/in-memory.ts), ready to be written by the request that
 * computed it (a start, a one-version resolve).
 */
export interface InMemoryAdvance {
  /** The result as the pump would write it: bounded by the state limit, secrets redacted. */
  result: AdvanceResult;
  /** The state and process output exactly as the committer would store them (pump/commit.ts). */
  state: string;
  output: string | null;
  /** Counts the advance in the engine's metrics once the caller knows whether its write landed. */
  report(applied: boolean): void;
}

/** What a carried write hands back: its answer, and the row when the lease was taken. */
export interface Carried<T> {
  value: T;
  leased?: LeasedRow;
}

/** The engine as a request that writes an instance sees it (a start, a resolve, a verb). */
export interface EngineForRequests {
  /** Ask the pump to look for due work now (after a start, resolve, resume…). */
  wake(): void;
  /**
   * Lease chaining from a request (docs/engine.md "Carried advances"). `write` is the request's
   * own statement: given a worker id it takes the instance's lease in that statement and returns
   * the row as leased, which this engine then runs like a claimed row (no claim round, no wake);
   * given null (the pump is off or stopping, every slot is taken, or the instance is already in
   * flight here) it leaves the row due for any pump, and the pump is woken.
   */
  carry<T>(instanceId: string, write: (carrier: string | null) => Promise<Carried<T>>): Promise<T>;
  /**
   * The advance this engine would run next for `row` (a row a request holds the facts of and is
   * about to write), computed in memory with no I/O; undefined when it needs I/O or cannot be
   * stored without objects (docs/engine.md "One advance in memory"). Nothing is written.
   */
  advanceInMemory(row: LeasedRow): Promise<InMemoryAdvance | undefined>;
}
