import type { Json } from "@baton/expr";
import type { InstanceInsert } from "../../storage/schema/index.js";

/** What differs between fresh instances; everything else a fresh row holds is the same for all. */
export interface FreshInstance {
  id: string;
  /** Omitted for a root: its own id. */
  rootId?: string;
  parentId?: string | null;
  /** For a child: the parent's task that spawned it, its key or index, and that visit's task_epoch. */
  spawnTask?: string | null;
  spawnKey?: string | null;
  parentTaskEpoch?: number;
  process: string;
  version: number;
  /** The first task of the definition. */
  task: string;
  /** The stored state text (freshState, externalised, stringifyJson). */
  state: string;
  /** A root's business key (docs/api.md "Business keys"); children have none. */
  key?: string | null;
  /** The traceparent its spans hang from (docs/tracing.md "The trace of an instance"); none while tracing is off. */
  traceParent?: string | null;
  now: number;
}

/**
 * The one builder of a fresh instance row: roots (startInstance), children (the commit
 * statement, pump/commit.ts) and test seeding all use it, so a new column gets its starting
 * value in one place. A fresh row is running, due now, at task_epoch 1 with no lease taken.
 */
export function freshInstanceRow(fresh: FreshInstance): InstanceInsert {
  return {
    id: fresh.id,
    rootId: fresh.rootId ?? fresh.id,
    parentId: fresh.parentId ?? null,
    spawnTask: fresh.spawnTask ?? null,
    spawnKey: fresh.spawnKey ?? null,
    parentTaskEpoch: fresh.parentTaskEpoch ?? 0,
    process: fresh.process,
    version: fresh.version,
    status: "running",
    phase: null,
    task: fresh.task,
    state: fresh.state,
    taskEpoch: 1,
    leaseEpoch: 0,
    wakeAt: fresh.now,
    key: fresh.key ?? null,
    traceParent: fresh.traceParent ?? null,
    // A root's tree holds itself; a child's tree is counted on its root (docs/limits.md#trees).
    treeSize: (fresh.parentId ?? null) === null ? 1 : null,
    createdAt: fresh.now,
    updatedAt: fresh.now,
  };
}

/** The state an instance starts with: its input, no outputs, no children. */
export function freshState(input: Json): Json {
  return { input, outputs: {}, _children: {} };
}
