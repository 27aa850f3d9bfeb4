import type { Json, LosslessNumber } from "@baton/expr";

type JsonNumber = number | LosslessNumber;

// `instances.state` (the instance contract, docs/instances.md): `input`, `outputs`, and the
// engine-private keys below, all starting with `_`. Stored state is read back with parseJson, so
// every number in a private key may come back as a LosslessNumber: compare with Number(…).

/** `_wait`: the armed visit of a wait task (tasks/wait.ts); ignored unless task and task_epoch match. */
export type ArmedWait = { task: string; task_epoch: JsonNumber; since?: JsonNumber; deadline?: JsonNumber | null };

/** `_outcome`: the answer a resolve or signal recorded for a visit (external/outcomes.ts → tasks/wait.ts). */
export type RecordedOutcome = { task_epoch: JsonNumber; result?: Json; error?: Json } & { [key: string]: Json };

/** `_spawn`: ties a child spawn to the visit that collects it (tasks/child.ts). */
export type SpawnMark = { task: string; task_epoch: JsonNumber };

export interface InstanceState {
  input: Json;
  outputs: { [taskId: string]: Json };
  /** Child ids (and keys) per spawning task, recorded when a visit spawns (tasks/child.ts). */
  _children: { [taskId: string]: Json };
  /** The `error` root of a task entered through an on_error goto; gone at its next normal transition. */
  _error?: { [key: string]: Json };
  _wait?: ArmedWait;
  _outcome?: RecordedOutcome;
  _spawn?: SpawnMark;
  /** Task entries in a row without waiting or calling out, carried by a loop's checkpoints (advance.ts). */
  _entries?: number;
  [key: string]: Json | undefined;
}

/**
 * Keys an advance rewrites on each task visit. The committed state takes them exactly as the
 * advance left them (present or deleted), never the stored copy: a key left over from an earlier
 * visit would make the next advance resume the wrong park or spawn.
 */
export const PER_VISIT_KEYS: ReadonlySet<string> = new Set([
  "_error",
  "_wait",
  "_outcome",
  "_spawn",
  "_children",
  "_entries",
]);

export function asInstanceState(value: Json): InstanceState {
  const object =
    value !== null && typeof value === "object" && !Array.isArray(value) ? (value as { [key: string]: Json }) : {};
  const outputs = object.outputs;
  const children = object._children;
  return {
    ...object,
    input: object.input ?? null,
    outputs:
      outputs !== null && typeof outputs === "object" && !Array.isArray(outputs)
        ? { ...(outputs as { [key: string]: Json }) }
        : {},
    _children:
      children !== null && typeof children === "object" && !Array.isArray(children)
        ? (children as { [key: string]: Json })
        : {},
  } as InstanceState;
}
