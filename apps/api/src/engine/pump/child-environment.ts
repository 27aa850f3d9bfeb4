import { type Json, parseJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import type { Clock } from "../../clock.js";
import { type Db, executePrepared, rowsOf } from "../../storage/db.js";
import { newId } from "../../storage/ids.js";
import type { ChildEnvironment, ChildOutcome } from "../advance/tasks/child.js";
import { sqlTextArray } from "../../storage/sql-arrays.js";
import { DefinitionFault } from "../advance/compiled-definition.js";
import type { DefinitionCache } from "./compiled-cache.js";
import { pinnedOrLatestVersion } from "../../definitions/store.js";
import { resolveRefs } from "../../storage/objects.js";
import { TaskFailure } from "../advance/task-failure.js";
import { AdvanceAbandoned } from "../advance/abandoned.js";
import { newReservationQueues, reserveInBatch, type ReservationQueues } from "../trees/reservation-batch.js";

/**
 * What one engine remembers of its trees between spawns: an instance's depth, which never
 * changes (the root is 0, a child it planned is its parent's + 1), so a spawn of a known
 * instance skips the walk up its ancestors. The instance count is never remembered: every
 * spawn reserves its children in the tree (trees/reservation.ts, docs/limits.md#trees), batched with
 * this engine's other spawns in the same tree.
 */
export interface TreeMemo {
  depths: Map<string, number>;
  /** The reservations waiting, per tree, for this engine's statement in flight in it (trees/reservation-batch.ts). */
  queues: ReservationQueues;
}

// A cache: past this many entries it is dropped whole (the next spawns walk up again).
const TREE_MEMO_ENTRIES = 100_000;

export function newTreeMemo(): TreeMemo {
  return { depths: new Map(), queues: newReservationQueues() };
}

/**
 * Thrown by reserveChildren when the spawner's lease epoch moved before its children were
 * reserved: its write will be fenced out, so the advance is dropped like one whose lease was lost.
 */
export class SpawnerFenced extends AdvanceAbandoned {}

/** The database side of child tasks for one parent advance (child-task.ts stays free of I/O). */
export function childEnvironment(
  db: Db,
  clock: Clock,
  definitions: DefinitionCache,
  parent: { id: string; rootId: string; process: string; version: number; leaseEpoch: number },
  tree: { maxDepth: number; maxInstances: number; depthFlag: string; instancesFlag: string },
  memo: TreeMemo = newTreeMemo(),
): ChildEnvironment {
  // One lookup per child process and task in this advance (a child_map often names one process twice).
  const chosen = new Map<string, Promise<number | undefined>>();
  // The depth of the children this advance plans, once reserveChildren has learned the parent's.
  let childDepth: number | undefined;
  return {
    async resolveChild(name, version, task) {
      const key = `${task}\u0000${name}`;
      if (version === undefined && !chosen.has(key)) chosen.set(key, pinnedOrLatestVersion(db, parent, task, name));
      const picked = version ?? (await chosen.get(key));
      if (picked === undefined)
        throw new TaskFailure("engine.spawn", `task "${task}": child process "${name}" is not registered`);
      try {
        const compiled = await definitions.get(name, picked);
        return { version: picked, definition: compiled.definition };
      } catch (error) {
        if (error instanceof DefinitionFault)
          throw new TaskFailure("engine.spawn", `task "${task}": child ${error.message}`);
        throw error;
      }
    },
    async loadChildren(ids) {
      if (ids.length === 0) return [];
      const rows = rowsOf<Record<string, unknown>>(
        // Prepared, as pinnedOrLatestVersion: a tree runs both once per parent visit, and planning them
        // each time cost PostgreSQL more than running them (docs/performance.md).
        await executePrepared(
          db,
          sql`SELECT id, status, output, error_code, error_message FROM instances WHERE id = ANY(${sqlTextArray(ids)})`,
        ),
      );
      return Promise.all(
        rows.map(
          async (r): Promise<ChildOutcome> => ({
            id: String(r.id),
            status: String(r.status),
            output:
              r.output === null || r.output === undefined
                ? null
                : await resolveRefs(db, parseJson(String(r.output)) as Json),
            errorCode: r.error_code === null || r.error_code === undefined ? null : String(r.error_code),
            errorMessage: r.error_message === null || r.error_message === undefined ? null : String(r.error_message),
          }),
        ),
      );
    },
    async reserveChildren(task, children) {
      const knownDepth = parent.id === parent.rootId ? 0 : memo.depths.get(parent.id);
      const reservation = await reserveInBatch(db, memo.queues, parent, children, tree, knownDepth);
      if (reservation.outcome === "fenced")
        throw new SpawnerFenced(
          `task "${task}": the lease epoch ${parent.leaseEpoch} of instance ${parent.id} moved before its children were reserved`,
        );
      const { depth } = reservation;
      if (reservation.outcome === "too_deep")
        throw new TaskFailure(
          "engine.spawn",
          `task "${task}": this instance is ${depth} level${depth === 1 ? "" : "s"} below its tree's root, so its children would pass the tree depth limit of ${tree.maxDepth} (${tree.depthFlag})`,
        );
      if (reservation.outcome === "full")
        throw new TaskFailure(
          "engine.spawn",
          `task "${task}": starting ${children} child${children === 1 ? "" : "ren"} would make the tree ${reservation.size + children} instances, more than the limit of ${tree.maxInstances} instances per tree (${tree.instancesFlag})`,
        );
      childDepth = depth + 1;
    },
    newId: () => {
      const id = newId(clock.now());
      if (childDepth !== undefined) {
        if (memo.depths.size >= TREE_MEMO_ENTRIES) memo.depths.clear();
        memo.depths.set(id, childDepth);
      }
      return id;
    },
  };
}
