import type { AdvanceResult } from "../advance/advance-types.js";
import type { InstanceState } from "../advance/instance-state.js";
import type { LeasedRow } from "../leases.js";
import { flagOf } from "../../limits.js";

// The results that fail an instance where it stands without running its advance: a poison
// instance (docs/limits.md#poison-instances), a stored definition the engine cannot run, a
// flow-control key that cannot be evaluated (docs/flow-control.md "The fields").

export function crashedFailure(row: LeasedRow, state: InstanceState, limit: number): AdvanceResult {
  return failedWithoutAdvance(
    row,
    state,
    "engine.crashed",
    `the instance was claimed ${row.attempts} times since its last write without an advance landing (the process running it stopped, or its write kept failing); it fails instead of being tried again (${flagOf("advanceAttempts")} is ${limit})`,
  );
}

export function definitionFailure(row: LeasedRow, state: InstanceState, message: string): AdvanceResult {
  return failedWithoutAdvance(row, state, "engine.definition", message);
}

/** The result that fails the instance at its task, as it stands, with `code` and its instance.failed line. */
export function failedWithoutAdvance(row: LeasedRow, state: InstanceState, code: string, why: string): AdvanceResult {
  const text = `task "${row.task}": ${code}: ${why}`;
  return {
    status: "failed",
    task: row.task,
    taskEpoch: row.taskEpoch,
    retryCount: row.retryCount,
    state,
    written: new Set(),
    errorCode: code,
    errorMessage: text,
    wakeAt: null,
    logs: [{ level: "error", event: "instance.failed", message: text, task: row.task, data: { code } }],
  };
}
