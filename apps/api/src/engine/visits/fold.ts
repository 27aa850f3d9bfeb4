import { type Json, parseJson } from "@baton/expr";
import { type Definition, taskEdges } from "@baton/model";
import { conflict } from "../../refusal.js";

// Where a reset takes an instance back to, and the state it had there, from the visit journal
// (docs/safe-change.md "Where a reset goes back to"). Pure: the rows come in, the place and
// the state go out; engine/trees/reset.ts reads and writes them.

/** A journal row as reset.ts reads it (storage/schema/visits.ts). */
export interface JournalRow {
  taskEpoch: number;
  task: string;
  kind: string;
  fromEpoch: number | null;
  fromTask: string | null;
  output: string | null;
  children: string | null;
  error: string | null;
  snapshot: string | null;
  whole: boolean;
}

/** The parts of the state a task visit changes (engine/advance/visits.ts); `input` never changes. */
export interface VisitState {
  outputs: { [task: string]: Json };
  children: { [task: string]: Json };
  error?: Json;
}

export interface ResetPoint {
  /** The visit the state is restored from: the target's first entry, or the visit the target is reached from. */
  epoch: number;
  /** True: the target itself was entered at `epoch`. False: the state is as visit `epoch` left it. */
  entered: boolean;
  state: VisitState;
  /** Tasks entered from the restore point on (they may run again: the only_once rule applies to them). */
  rerun: Array<{ task: string; epoch: number }>;
  /** Children spawned by a visit at or after this epoch were spawned after the point. */
  childrenFrom: number;
}

export interface Current {
  id: string;
  task: string;
  taskEpoch: number;
  outputs: { [task: string]: Json };
  children: { [task: string]: Json };
}

/**
 * The point a reset of the instance `current` to `target` goes back to: the first entry of
 * `target` when the journal has one (the visit of epoch 1 is the instance's first task), else the
 * latest visit of a task from which `definition` reaches `target`, as that visit left it.
 */
export function resetPoint(
  rows: readonly JournalRow[],
  current: Current,
  definition: Definition,
  target: string,
  visitRecordFlag: string,
): ResetPoint {
  const byEpoch = new Map(rows.map((r) => [r.taskEpoch, r]));
  const entries = entriesOf(rows, current);
  const first = entries.find((e) => e.task === target);
  if (first !== undefined) {
    return {
      epoch: first.epoch,
      entered: true,
      state: stateAt(byEpoch, first.epoch, current.id, visitRecordFlag),
      rerun: entries.filter((e) => e.epoch >= first.epoch),
      childrenFrom: first.epoch,
    };
  }
  const reaches = reachersOf(definition, target);
  const anchor = [...entries].reverse().find((e) => reaches.has(e.task));
  if (anchor === undefined)
    throw conflict(
      `instance ${current.id} never entered task "${target}", and no task it entered leads there in its version; reset goes back to a task the instance entered or one its definition reaches from one`,
    );
  const left = rows.find((r) => r.kind === "enter" && r.fromEpoch === anchor.epoch);
  let state: VisitState;
  if (left === undefined) {
    // The anchor is the current visit, never left: its state as it stands.
    state = { outputs: { ...current.outputs }, children: { ...current.children } };
  } else {
    state = stateAt(byEpoch, left.taskEpoch, current.id, visitRecordFlag);
    delete state.error;
  }
  return {
    epoch: anchor.epoch,
    entered: false,
    state,
    rerun: entries.filter((e) => e.epoch > anchor.epoch),
    childrenFrom: anchor.epoch + 1,
  };
}

/** Every task entry in epoch order: epoch 1 (the first task) and each journal row. */
function entriesOf(rows: readonly JournalRow[], current: Current): Array<{ task: string; epoch: number }> {
  const entries: Array<{ task: string; epoch: number }> = [];
  const firstTask = rows.find((r) => r.fromEpoch === 1 && r.kind !== "reset")?.fromTask;
  if (firstTask != null) entries.push({ task: firstTask, epoch: 1 });
  else if (current.taskEpoch === 1) entries.push({ task: current.task, epoch: 1 });
  for (const r of [...rows].sort((a, b) => a.taskEpoch - b.taskEpoch))
    entries.push({ task: r.task, epoch: r.taskEpoch });
  return entries;
}

/** The ids of tasks from which some path of the definition reaches `target` (itself only round a loop). */
function reachersOf(definition: Definition, target: string): Set<string> {
  const index = definition.tasks.findIndex((t) => t.id === target);
  const predecessors: number[][] = definition.tasks.map(() => []);
  for (const e of taskEdges(definition)) predecessors[e.to]!.push(e.from);
  const seen = new Set<number>();
  const stack = [index];
  while (stack.length > 0) {
    for (const from of predecessors[stack.pop()!]!)
      if (!seen.has(from)) {
        seen.add(from);
        stack.push(from);
      }
  }
  return new Set([...seen].map((i) => definition.tasks[i]!.id));
}

/**
 * The state on entry to visit `epoch`: back along `from_epoch` to epoch 1 (the fresh state) or a
 * reset's snapshot, then each entry's record applied in order. Refused where the chain has a
 * gap (a visit not recorded: past --limit-visits-recorded, or made before the journal existed)
 * or a record too large to keep.
 */
function stateAt(byEpoch: Map<number, JournalRow>, epoch: number, id: string, visitRecordFlag: string): VisitState {
  const chain: JournalRow[] = [];
  let at = epoch;
  let base: VisitState = { outputs: {}, children: {} };
  while (at !== 1) {
    const row = byEpoch.get(at);
    if (row === undefined)
      throw conflict(
        `instance ${id} has no record of its task visit ${at}, which the state to restore depends on (visits past --limit-visits-recorded, or made before the visit journal, are not recorded); it cannot be reset to before it`,
      );
    if (!row.whole)
      throw conflict(
        `instance ${id}: the record of its task visit ${at} (task "${row.task}") was larger than ${visitRecordFlag} and was not kept; it cannot be reset to that visit or before it`,
      );
    if (row.kind === "reset") {
      const snapshot = parseJson(row.snapshot ?? "{}") as {
        outputs?: VisitState["outputs"];
        _children?: VisitState["children"];
      };
      base = { outputs: { ...(snapshot.outputs ?? {}) }, children: { ...(snapshot._children ?? {}) } };
      break;
    }
    chain.push(row);
    at = row.fromEpoch ?? 1;
  }
  const state = base;
  for (const row of chain.reverse()) {
    if (row.kind !== "enter" || row.fromTask === null) continue;
    if (row.output === null) delete state.outputs[row.fromTask];
    else state.outputs[row.fromTask] = parseJson(row.output);
    if (row.children === null) delete state.children[row.fromTask];
    else state.children[row.fromTask] = parseJson(row.children);
  }
  const last = byEpoch.get(epoch);
  if (epoch !== 1 && last !== undefined && last.kind !== "retry" && last.error !== null)
    state.error = parseJson(last.error);
  return state;
}
