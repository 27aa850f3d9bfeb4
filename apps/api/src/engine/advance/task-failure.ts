import { ExprLimitError, ExprRuntimeError, type Json } from "@baton/expr";
import { DefinitionFault } from "./compiled-definition.js";

/**
 * What the log shows of one fetch attempt (docs/engine.md "Log events"): the URL's host (with a
 * non-default port; never its path, query or credentials, which may carry secrets) and the
 * milliseconds from sending the request to the end of its response or its failure — absent
 * when the request never left (a refused target, a DNS failure).
 */
export interface FetchCall {
  host: string;
  latencyMs?: number;
}

/** A FetchCall as log data: `{host, latency_ms}`. */
export function callData(call: FetchCall | undefined): { [key: string]: Json } {
  if (call === undefined) return {};
  return call.latencyMs === undefined ? { host: call.host } : { host: call.host, latency_ms: call.latencyMs };
}

/** An action or evaluation ended with an error code (docs/language.md#error-codes); routed through on_error unless `engine.*`. */
export class TaskFailure extends Error {
  override readonly name = "TaskFailure";
  readonly code: string;
  readonly data?: Json;
  /** Extra keys of the `error` root (`child_key`/`child_index` of a raised child). */
  readonly context?: { [key: string]: Json };
  /** The fetch this failed attempt made or tried (tasks/fetch.ts); its task.failed log entry shows it. */
  call?: FetchCall;

  constructor(code: string, message: string, data?: Json, context?: { [key: string]: Json }) {
    super(message);
    this.code = code;
    this.data = data;
    this.context = context;
  }
}

/** Any error an action or evaluation threw, as the TaskFailure it routes as (`engine.*` for faults). */
export function failureOf(error: unknown, limitFlag?: (error: ExprLimitError) => string): TaskFailure {
  if (error instanceof TaskFailure) return error;
  if (error instanceof ExprRuntimeError) return new TaskFailure("engine.expression", error.message);
  // A passed evaluation bound (docs/limits.md): like any engine code, never caught by on_error.
  if (error instanceof ExprLimitError)
    return new TaskFailure(
      "engine.limit",
      limitFlag === undefined ? error.message : `${error.message} (${limitFlag(error)})`,
    );
  if (error instanceof DefinitionFault) return new TaskFailure("engine.definition", error.message);
  // A fault of the engine itself: fail the instance (an operator can retry it) rather than loop on it.
  return new TaskFailure("engine.panic", `internal error: ${error instanceof Error ? error.message : String(error)}`);
}
