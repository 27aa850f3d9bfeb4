import { type Json, jsonTextSize } from "@baton/expr";
import type { AdvanceResult } from "./advance-types.js";
import type { InstanceState } from "./instance-state.js";

/**
 * The result to write instead of `result` when the state (and process output) it would write is
 * larger than `maxBytes` as JSON (docs/limits.md, --limit-state-bytes): the instance fails with
 * `engine.limit` and keeps `before`, the state it had when the advance began — nothing of the
 * oversized advance is stored, spawned or armed. Undefined when the result fits.
 */
export function stateLimitFailure(
  result: AdvanceResult,
  before: InstanceState,
  maxBytes: number,
  flag: string,
): AdvanceResult | undefined {
  const size =
    jsonTextSize(result.state as unknown as Json) + (result.output === undefined ? 0 : jsonTextSize(result.output));
  if (size <= maxBytes) return undefined;
  const message = `task "${result.task}": engine.limit: the state this advance would write is ${size} characters as JSON, more than the limit of ${maxBytes} (${flag})`;
  return {
    status: "failed",
    task: result.task,
    taskEpoch: result.taskEpoch,
    retryCount: result.retryCount,
    state: before,
    written: new Set(),
    errorCode: "engine.limit",
    errorMessage: message,
    wakeAt: null,
    logs: [
      ...result.logs,
      { level: "error", event: "instance.failed", message, task: result.task, data: { code: "engine.limit" } },
    ],
    ...(result.consumedSignal === undefined ? {} : { consumedSignal: result.consumedSignal }),
    ...(result.externalWait === "clear" ? { externalWait: "clear" as const } : {}),
  };
}
