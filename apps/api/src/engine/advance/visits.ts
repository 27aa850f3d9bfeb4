import { type Json, jsonTextSize } from "@baton/expr";
import type { InstanceState } from "./instance-state.js";

// The visit journal (docs/safe-change.md "The visit journal"): each task entry records what the
// task it left changed, so the state on entry to any recorded visit can be rebuilt exactly for a
// reset (engine/visits/). A task only ever writes `outputs.<its id>` and `_children.<its id>`,
// and `_error` is set or cleared on the transition itself; the other engine-private keys are
// bound to one visit. So a record holds those three, as they stand when the task is left.

/** One task entry: visit `taskEpoch` of `task`, entered on leaving visit `fromEpoch` of `fromTask`. */
export interface VisitRecord {
  taskEpoch: number;
  task: string;
  fromEpoch: number;
  fromTask: string;
  /** `outputs.<fromTask>` on leaving it; undefined when absent. */
  output?: Json;
  /** `_children.<fromTask>` on leaving it; undefined when absent. */
  children?: Json;
  /** The `error` root the entry carries (an on_error goto); undefined on a normal entry. */
  error?: Json;
  /** False: the values passed --limit-visit-record-bytes and are not kept (a reset cannot rebuild past it). */
  whole?: false;
}

/** The bounds of the journal an advance writes (--limit-visits-recorded, --limit-visit-record-bytes). */
export interface VisitBounds {
  maxRecorded: number;
  maxRecordBytes: number;
}

/**
 * Records the entry into `result.task` (already entered: its epoch is `result.taskEpoch`) from
 * `fromTask`, visit `fromEpoch`. Entries past `maxRecorded` task epochs are not recorded
 * (--limit-visits-recorded): a reset cannot go back to them. Exactly what the state holds is
 * recorded (never a copy changed later): the values are only read from here on.
 */
export function recordVisit(
  result: { taskEpoch: number; task: string; visits?: VisitRecord[] },
  state: InstanceState,
  fromTask: string,
  fromEpoch: number,
  bounds: VisitBounds,
): void {
  if (result.taskEpoch > bounds.maxRecorded) return;
  const record: VisitRecord = { taskEpoch: result.taskEpoch, task: result.task, fromEpoch, fromTask };
  if (state.outputs[fromTask] !== undefined) record.output = state.outputs[fromTask];
  if (state._children[fromTask] !== undefined) record.children = state._children[fromTask];
  if (state._error !== undefined) record.error = state._error;
  const size =
    (record.output === undefined ? 0 : jsonTextSize(record.output)) +
    (record.children === undefined ? 0 : jsonTextSize(record.children)) +
    (record.error === undefined ? 0 : jsonTextSize(record.error));
  if (size > bounds.maxRecordBytes) {
    delete record.output;
    delete record.children;
    delete record.error;
    record.whole = false;
  }
  (result.visits ??= []).push(record);
}
