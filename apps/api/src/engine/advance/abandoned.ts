/**
 * Thrown by the advance's environment to stop the advance and write nothing: the lease is too
 * close to expiring to act (docs/engine.md, "A lease is never acted on late"), or the database
 * went away under a read the advance needed. Never a task failure: advance() rethrows it instead
 * of routing it through on_error, and the pump drops the advance; the lease expires and another
 * claim runs the instance again.
 */
export class AdvanceAbandoned extends Error {
  override readonly name = "AdvanceAbandoned";
}
