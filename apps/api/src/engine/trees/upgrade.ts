import type { Json } from "@baton/expr";
import { CompatTooLarge, upgradeBlockers } from "@baton/model";
import { and, asc, eq, sql } from "drizzle-orm";
import { sqlTextArray } from "../../storage/sql-arrays.js";
import { getDefinition } from "../../definitions/store.js";
import type { Clock } from "../../storage/clock.js";
import { type Db, inTransaction } from "../../storage/db.js";
import { instances } from "../../storage/schema/index.js";
import { Refusal } from "../../refusal.js";
import { appendLogs } from "../audit-log.js";
import { isLive } from "../statuses.js";
import { lockTree } from "./lock.js";

export interface UpgradeMove {
  instance_id: string;
  process: string;
  from_version: number;
  to_version: number;
  task: string;
}

export interface UpgradeResult {
  upgraded: boolean;
  moves: UpgradeMove[] | null;
}

/**
 * Moves the root and every live descendant of the root's process at `fromVersion` to
 * `toVersion`. The tree's rows are locked (in id order, like every tree-wide writer) and
 * re-checked inside the one transaction. A live lease anywhere refuses rather than fences: the
 * in-flight advance commits against the version it claimed, so the caller retries once it settles.
 */
export async function upgradeTree(
  db: Db,
  clock: Clock,
  rootId: string,
  fromVersion: number,
  toVersion: number,
  actor: string | null,
  /** --limit-compat-steps (docs/limits.md); the default when not given. */
  maxCompatSteps?: number,
): Promise<UpgradeResult> {
  const [head] = await db.select({ process: instances.process }).from(instances).where(eq(instances.id, rootId));
  if (head === undefined) throw new Refusal("not_found", `instance ${rootId} does not exist`);
  const target = await getDefinition(db, head.process, toVersion);
  if (target === undefined)
    throw new Refusal("not_found", `process "${head.process}" has no version ${toVersion} (to_version)`);
  if (fromVersion === toVersion) return { upgraded: false, moves: null };
  const source = await getDefinition(db, head.process, fromVersion);

  return inTransaction(db, async (tx) => {
    const now = clock.now();
    await lockTree(tx, rootId);
    const rows = await tx.select().from(instances).where(eq(instances.rootId, rootId)).orderBy(asc(instances.id));
    const root = rows.find((r) => r.id === rootId);
    if (root === undefined) throw new Refusal("not_found", `instance ${rootId} does not exist`);
    if (!isLive(root.status))
      throw new Refusal("conflict", `instance ${rootId} is ${root.status}; only a live tree can be upgraded`);
    if (root.version !== fromVersion || source === undefined)
      throw new Refusal(
        "conflict",
        `instance ${rootId} runs version ${root.version} of "${root.process}", not from_version ${fromVersion}`,
      );
    const leased = rows.find((r) => r.leaseOwner !== null && r.leaseExpiresAt !== null && r.leaseExpiresAt > now);
    if (leased !== undefined)
      throw new Refusal(
        "conflict",
        `a task is in flight; retry when it settles (instance ${leased.id}, task "${leased.task}")`,
      );

    const moving = rows.filter((r) => isLive(r.status) && r.process === root.process && r.version === fromVersion);
    const sittingOn = [...new Set(moving.map((r) => r.task))];
    let blockers: ReturnType<typeof upgradeBlockers>;
    try {
      blockers = upgradeBlockers(
        source.definition,
        target.definition,
        fromVersion,
        toVersion,
        sittingOn,
        maxCompatSteps,
      );
    } catch (error) {
      if (!(error instanceof CompatTooLarge)) throw error;
      throw new Refusal(
        "conflict",
        `cannot upgrade "${root.process}" from version ${fromVersion} to ${toVersion}: checking that the tree can move takes more work than the limit of ${error.limit} steps (--limit-compat-steps, docs/limits.md)`,
      );
    }
    if (blockers.length > 0) {
      const b = blockers[0];
      const more = blockers.length > 1 ? ` (and ${blockers.length - 1} more; see POST /definitions/compat)` : "";
      throw new Refusal(
        "conflict",
        `cannot upgrade "${root.process}" from version ${fromVersion} to ${toVersion}: an instance sits on task "${b.task}", and ${b.address}${b.path ? ` ${b.path}` : ""}: ${b.message}${more}`,
      );
    }

    const ids = moving.map((r) => r.id);
    await tx
      .update(instances)
      // Bumping lease_epoch fences out a worker whose lease expired without being reclaimed:
      // its result was computed under the old version and must not land on the new one.
      .set({ version: toVersion, leaseEpoch: sql`${instances.leaseEpoch} + 1`, updatedAt: now })
      .where(and(sql`${instances.id} = ANY(${sqlTextArray(ids)})`, eq(instances.version, fromVersion)));
    const data: Record<string, Json> = { from_version: fromVersion, to_version: toVersion };
    await appendLogs(
      tx,
      clock,
      moving.map((r) => ({
        instanceId: r.id,
        rootId,
        level: "info" as const,
        event: "instance.upgraded",
        message: `upgraded from version ${fromVersion} to ${toVersion} by ${actor ?? "an operator"} at task "${r.task}"`,
        task: r.task,
        actor,
        data,
      })),
    );
    const moves = moving.map((r) => ({
      instance_id: r.id,
      process: r.process,
      from_version: fromVersion,
      to_version: toVersion,
      task: r.task,
    }));
    return { upgraded: moves.length > 0, moves: moves.length > 0 ? moves : null };
  });
}
