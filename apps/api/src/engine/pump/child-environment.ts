import { type Json, parseJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import type { Clock } from "../../storage/clock.js";
import { type Db, executePrepared, rowsOf } from "../../storage/db.js";
import { newId } from "../../storage/ids.js";
import type { ChildEnvironment, ChildOutcome } from "../advance/tasks/child.js";
import { sqlTextArray } from "../../storage/sql-arrays.js";
import { DefinitionFault } from "../advance/compiled-definition.js";
import type { DefinitionCache } from "./compiled-cache.js";
import { pinnedOrLatestVersion } from "../../definitions/store.js";
import { resolveRefs } from "../../storage/objects.js";
import { TaskFailure } from "../advance/task-failure.js";

/**
 * What one engine remembers of its trees between spawns, so a spawn far below the limits costs
 * no round trip (docs/limits.md#trees): an instance's depth never changes, and a tree's count
 * taken less than TREE_COUNT_REUSE_MS ago, plus the children planned here since, may let a spawn
 * through while it stays under TREE_COUNT_REUSE_SHARE of the limit. A refusal always comes from
 * a fresh count of the committed rows.
 */
export interface TreeMemo {
  depths: Map<string, number>;
  counts: Map<string, { instances: number; at: number }>;
}

export const TREE_COUNT_REUSE_MS = 1_000;
export const TREE_COUNT_REUSE_SHARE = 0.9;
// Both maps are caches: past this many entries one is dropped whole (its next spawns count again).
const TREE_MEMO_ENTRIES = 100_000;

export function newTreeMemo(): TreeMemo {
  return { depths: new Map(), counts: new Map() };
}

/** The database side of child tasks for one parent advance (child-task.ts stays free of I/O). */
export function childEnvironment(
  db: Db,
  clock: Clock,
  definitions: DefinitionCache,
  parent: { id: string; rootId: string; process: string; version: number },
  tree: { maxDepth: number; maxInstances: number; depthFlag: string; instancesFlag: string },
  memo: TreeMemo = newTreeMemo(),
): ChildEnvironment {
  // One lookup per child process and task in this advance (a child_map often names one process twice).
  const chosen = new Map<string, Promise<number | undefined>>();
  // The depth of the children this advance plans, once checkTreeRoom has learned the parent's.
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
    async checkTreeRoom(task, children) {
      const knownDepth = parent.id === parent.rootId ? 0 : memo.depths.get(parent.id);
      const counted = memo.counts.get(parent.rootId);
      const fresh = counted !== undefined && performance.now() - counted.at < TREE_COUNT_REUSE_MS;
      if (
        fresh &&
        knownDepth !== undefined &&
        knownDepth + 1 <= tree.maxDepth &&
        counted.instances + children <= Math.floor(tree.maxInstances * TREE_COUNT_REUSE_SHARE)
      ) {
        counted.instances += children;
        childDepth = knownDepth + 1;
        return;
      }
      // A stale count is marked fresh while this spawn counts again, so the spawns running
      // beside it keep using it instead of all counting at once; what they add meanwhile is
      // added to the new count.
      if (counted !== undefined && !fresh) counted.at = performance.now();
      const before = counted?.instances ?? 0;
      const { depth, instances } = await treeSize(db, parent, tree.maxDepth);
      // Remembered before the checks: a refusal leaves the exact count behind, not the stale one.
      const meanwhile =
        counted !== undefined && memo.counts.get(parent.rootId) === counted ? counted.instances - before : 0;
      if (memo.counts.size >= TREE_MEMO_ENTRIES) memo.counts.clear();
      const counts = { instances: instances + meanwhile, at: performance.now() };
      memo.counts.set(parent.rootId, counts);
      if (depth + 1 > tree.maxDepth)
        throw new TaskFailure(
          "engine.spawn",
          `task "${task}": this instance is ${depth} level${depth === 1 ? "" : "s"} below its tree's root, so its children would pass the tree depth limit of ${tree.maxDepth} (${tree.depthFlag})`,
        );
      if (instances + children > tree.maxInstances)
        throw new TaskFailure(
          "engine.spawn",
          `task "${task}": starting ${children} child${children === 1 ? "" : "ren"} would make the tree ${instances + children} instances, more than the limit of ${tree.maxInstances} instances per tree (${tree.instancesFlag})`,
        );
      counts.instances += children;
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

/**
 * How deep `parent` sits (its ancestors, counted up to `maxDepth` + 1) and how many instances
 * its tree holds, as committed: one round trip. Spawns running at once in the same tree each
 * see the other's children only once written, so a tree can pass the instance limit by the
 * children of the spawns in flight together (docs/limits.md#trees).
 */
async function treeSize(
  db: Db,
  parent: { id: string; rootId: string },
  maxDepth: number,
): Promise<{ depth: number; instances: number }> {
  const rows = rowsOf<{ depth: number | string | null; instances: number | string }>(
    await db.execute(sql`
      WITH RECURSIVE up(parent_id, depth) AS (
        SELECT parent_id, 0 FROM instances WHERE id = ${parent.id}
        UNION ALL
        SELECT i.parent_id, up.depth + 1 FROM instances i JOIN up ON i.id = up.parent_id WHERE up.depth <= ${maxDepth}
      )
      SELECT (SELECT max(depth) FROM up) AS depth,
             (SELECT count(*)::int FROM instances WHERE root_id = ${parent.rootId}) AS instances`),
  );
  return { depth: Number(rows[0]?.depth ?? 0), instances: Number(rows[0]?.instances ?? 0) };
}
