import { AdvanceAbandoned } from "./abandoned.js";
import { advance } from "./advance.js";
import type { AdvanceEnvironment, AdvanceInput, AdvanceResult } from "./advance-types.js";
import type { CompiledDefinition } from "./compiled-definition.js";

// An advance run in memory, before anything is written (docs/engine.md "One advance in
// memory"): a request that already holds the row's facts (a resolve, a start) computes where
// the instance goes next and writes that final row in its own statement, instead of writing a
// version the pump then advances and writes again. Everything that would reach the database or
// the network stops the run with NeedsIo; the caller then takes the path that leases the row
// before any I/O, so nothing acts twice.

/** What stopped an in-memory advance: the I/O it reached. */
export type IoKind = "fetch" | "children" | "signals";

/**
 * Thrown by the I/O hooks of an in-memory environment. It is an AdvanceAbandoned, so advance()
 * rethrows it instead of routing it through on_error as a task failure: it must never become
 * part of a result.
 */
export class NeedsIo extends AdvanceAbandoned {
  constructor(readonly io: IoKind) {
    super(`the advance needs I/O (${io})`);
  }
}

/**
 * Everything of an advance's environment that needs no I/O (clock, randomness, config root,
 * limits, worker id), plus an optional `peekSignal` for a caller that knows the answer without
 * a read (a fresh instance has no buffered signal).
 */
export type InMemoryBasis = Omit<AdvanceEnvironment, "fetch" | "children" | "peekSignal"> &
  Pick<AdvanceEnvironment, "peekSignal">;

/** The environment whose fetch, children and (unless given) signal buffer throw NeedsIo. */
export function inMemoryEnvironment(basis: InMemoryBasis): AdvanceEnvironment {
  return {
    ...basis,
    fetch: () => Promise.reject(new NeedsIo("fetch")),
    peekSignal: basis.peekSignal ?? (() => Promise.reject(new NeedsIo("signals"))),
    // A getter that throws: advance() reads `env.children` only on entering a child task, and an
    // absent one would fail that task with engine.definition instead of asking for I/O.
    get children(): never {
      throw new NeedsIo("children");
    },
  };
}

/**
 * advance() with no I/O: its result, or undefined when it reached I/O (nothing of the run may be
 * used then). `input.state` must hold no externalised values (the caller resolves them or takes
 * the I/O path). The result is exactly what advance() returns with a full environment, so the
 * caller post-processes it as the pump does (state limit, redaction) before writing it.
 */
export async function advanceInMemory(
  def: CompiledDefinition,
  input: AdvanceInput,
  basis: InMemoryBasis,
): Promise<AdvanceResult | undefined> {
  try {
    return await advance(def, input, inMemoryEnvironment(basis));
  } catch (error) {
    if (error instanceof NeedsIo) return undefined;
    throw error;
  }
}
