import type { Json } from "@baton/expr";
import { blockersOn } from "@baton/model";
import { and, asc, eq, sql } from "drizzle-orm";
import { sqlTextArray } from "../../storage/sql-arrays.js";
import type { Checker } from "../../definitions/checker.js";
import { definitionExists } from "../../definitions/store.js";
import { upgradeGatesOf } from "../../definitions/upgrade-gates.js";
import type { Clock } from "../../clock.js";
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

/** How the upgrade verb checks compatibility (docs/compat.md "The upgrade verb"). */
export interface UpgradeCheck {
  /** The checker threads: the check runs there, never on the event loop. */
  checker: Checker;
  /** --limit-compat-steps (docs/limits.md). */
  maxCompatSteps: number;
  /** Test hook: runs after the check and before the tree is locked (to order races in tests). */
  afterCheck?: () => Promise<void>;
}

type RootRow = Pick<typeof instances.$inferSelect, "id" | "process" | "version" | "status">;

/** A live root at `fromVersion`, or the 409 saying what it is instead. */
function requireMovable(root: RootRow, fromVersion: number): void {
  if (!isLive(root.status))
    throw new Refusal("conflict", `instance ${root.id} is ${root.status}; only a live tree can be upgraded`);
  if (root.version !== fromVersion)
    throw new Refusal(
      "conflict",
      `instance ${root.id} runs version ${root.version} of "${root.process}", not from_version ${fromVersion}`,
    );
}

/**
 * Moves the root and every live descendant of the root's process at `fromVersion` to
 * `toVersion`. The compatibility check runs first, on the checker thread and outside any
 * transaction: its gates depend on the two stored versions alone, and a root's process and
 * versions never change, so what it relied on is re-verified under the tree lock by the root
 * still being live at `fromVersion` (else 409). Where the instances sit is read only under the
 * lock, so an advance that moved one between the check and the lock is judged where it is now.
 * The tree's rows are locked (in id order, like every tree-wide writer). A live lease anywhere
 * refuses rather than fences: the in-flight advance commits against the version it claimed, so
 * the caller retries once it settles.
 */
export async function upgradeTree(
  db: Db,
  clock: Clock,
  rootId: string,
  fromVersion: number,
  toVersion: number,
  actor: string | null,
  check: UpgradeCheck,
): Promise<UpgradeResult> {
  const [head] = await db
    .select({ id: instances.id, process: instances.process, version: instances.version, status: instances.status })
    .from(instances)
    .where(eq(instances.id, rootId));
  if (head === undefined) throw new Refusal("not_found", `instance ${rootId} does not exist`);
  if (!(await definitionExists(db, head.process, toVersion)))
    throw new Refusal("not_found", `process "${head.process}" has no version ${toVersion} (to_version)`);
  if (fromVersion === toVersion) return { upgraded: false, moves: null };
  // Refused before the check when it would be refused under the lock anyway.
  requireMovable(head, fromVersion);
  const pair = { process: head.process, fromVersion, toVersion };
  const gates = await upgradeGatesOf(check.checker, db, pair, check.maxCompatSteps);
  await check.afterCheck?.();

  return inTransaction(db, async (tx) => {
    const now = clock.now();
    await lockTree(tx, rootId);
    const rows = await tx.select().from(instances).where(eq(instances.rootId, rootId)).orderBy(asc(instances.id));
    const root = rows.find((r) => r.id === rootId);
    if (root === undefined) throw new Refusal("not_found", `instance ${rootId} does not exist`);
    requireMovable(root, fromVersion);
    const leased = rows.find((r) => r.leaseOwner !== null && r.leaseExpiresAt !== null && r.leaseExpiresAt > now);
    if (leased !== undefined)
      throw new Refusal(
        "conflict",
        `a task is in flight; retry when it settles (instance ${leased.id}, task "${leased.task}")`,
      );

    const moving = rows.filter((r) => isLive(r.status) && r.process === root.process && r.version === fromVersion);
    const blockers = blockersOn(gates, [...new Set(moving.map((r) => r.task))]);
    if (blockers.length > 0) {
      const b = blockers[0]!;
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
        message: `upgraded from version ${fromVersion} to ${toVersion} at task "${r.task}"`,
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
