import { sql } from "drizzle-orm";
import { type Db, executePrepared, rowsOf } from "../storage/db.js";
import { sqlIntArray, sqlTextArray } from "../storage/sql-arrays.js";
import { LEASE_MS } from "./statuses.js";
import { lockInIdOrder } from "./trees/lock.js";

/** A row as the claim leased it; `leaseEpoch` is the fence for every write of this advance. */
export interface LeasedRow {
  id: string;
  rootId: string;
  process: string;
  version: number;
  task: string;
  stateText: string;
  retryCount: number;
  taskEpoch: number;
  leaseEpoch: number;
  /** Lease owner whose lease expired without a write: the previous attempt may have run. */
  reclaimedFrom: string | null;
  /** A child's parent and the parent's task_epoch when it spawned it (its settling write wakes that visit). */
  parentId: string | null;
  parentTaskEpoch: number;
  /** Claims since the instance's last landed advance write, this one included (docs/limits.md#poison-instances). */
  attempts: number;
  /** The row's trace_parent: what its advance spans hang from (docs/tracing.md "The trace of an instance"). */
  traceParent: string | null;
}

/**
 * One claim statement (its own commit): due, unleased running rows, oldest due first, skipping
 * rows another replica is claiming right now. Each claimed row gets this worker's lease and a
 * new lease_epoch; a row whose expired lease still names an owner keeps that owner as
 * previous_owner. wake_at moves to the lease expiry: a leased row is due again exactly when
 * its lease could be reclaimed, so claim scans of the due index never wade through rows in
 * flight (the advance's write sets the real wake_at).
 */
export async function leaseDue(db: Db, workerId: string, now: number, limit: number): Promise<LeasedRow[]> {
  if (limit <= 0) return [];
  const result = await executePrepared(
    db,
    sql`
    WITH due AS (
      SELECT id, lease_owner AS old_owner FROM instances
      WHERE status = 'running' AND wake_at IS NOT NULL AND wake_at <= ${now}
        AND (lease_expires_at IS NULL OR lease_expires_at <= ${now})
      ORDER BY wake_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE instances AS i
    SET lease_owner = ${workerId}, lease_expires_at = ${now + LEASE_MS}, wake_at = ${now + LEASE_MS}, lease_epoch = i.lease_epoch + 1,
        attempts = i.attempts + 1, previous_owner = COALESCE(due.old_owner, i.previous_owner)
    FROM due WHERE i.id = due.id
    RETURNING i.id, i.root_id, i.process, i.version, i.task, i.state, i.retry_count, i.task_epoch, i.lease_epoch, due.old_owner,
              i.parent_id, i.parent_task_epoch, i.attempts, i.trace_parent`,
  );
  return rowsOf<Record<string, unknown>>(result).map(leasedRowOf);
}

/** What a leased row is built from: what is not given is that of a root's first attempt with no earlier owner. */
export type LeasedRowParts = Omit<LeasedRow, "reclaimedFrom" | "parentId" | "parentTaskEpoch" | "attempts"> &
  Partial<Pick<LeasedRow, "reclaimedFrom" | "parentId" | "parentTaskEpoch" | "attempts">>;
// traceParent is required of every builder: a row built without it would put its spans in another trace.

/**
 * The one builder of a LeasedRow: from a statement that took the lease (leasedRowOf), a start
 * that took it with the insert (starts/start-statement.ts), a resolve that keeps it
 * (external/), or a row computed in memory before anything is leased.
 */
export function leasedRow(parts: LeasedRowParts): LeasedRow {
  return {
    ...parts,
    reclaimedFrom: parts.reclaimedFrom ?? null,
    parentId: parts.parentId ?? null,
    parentTaskEpoch: parts.parentTaskEpoch ?? 0,
    attempts: parts.attempts ?? 1,
  };
}

/**
 * A leased `instances` row as a statement that took the lease returned it (this claim, or a
 * resolve carrying the instance on, external/resolve.ts): `old_owner` is the expired owner it
 * took over from, if the statement returns one.
 */
export function leasedRowOf(r: Record<string, unknown>): LeasedRow {
  return leasedRow({
    id: String(r.id),
    rootId: String(r.root_id),
    process: String(r.process),
    version: Number(r.version),
    task: String(r.task),
    stateText: String(r.state),
    retryCount: Number(r.retry_count),
    taskEpoch: Number(r.task_epoch),
    leaseEpoch: Number(r.lease_epoch),
    reclaimedFrom: r.old_owner === null || r.old_owner === undefined ? null : String(r.old_owner),
    parentId: r.parent_id === null || r.parent_id === undefined ? null : String(r.parent_id),
    parentTaskEpoch: Number(r.parent_task_epoch ?? 0),
    attempts: Number(r.attempts ?? 1),
    traceParent: r.trace_parent === null || r.trace_parent === undefined ? null : String(r.trace_parent),
  });
}

/**
 * Extends the leases this worker still holds; returns the ids whose lease was lost (fence moved).
 * Never shortens one (GREATEST): a renewal that reaches the row after a later write kept the
 * lease must not undo that write's expiry, or the holder's view would outrun the row's.
 */
export async function renewLeases(
  db: Db,
  workerId: string,
  now: number,
  held: ReadonlyArray<{ id: string; leaseEpoch: number }>,
): Promise<string[]> {
  if (held.length === 0) return [];
  const ids = held.map((h) => h.id);
  const epochs = held.map((h) => h.leaseEpoch);
  const result = await executePrepared(
    db,
    sql`
    WITH locked AS (${lockInIdOrder(ids)})
    UPDATE instances AS i SET lease_expires_at = GREATEST(i.lease_expires_at, ${now + LEASE_MS}::bigint),
      wake_at = GREATEST(i.lease_expires_at, ${now + LEASE_MS}::bigint)
    FROM (SELECT unnest(${sqlTextArray(ids)}) AS id, unnest(${sqlIntArray(epochs)}) AS epoch) AS h, locked
    WHERE i.id = h.id AND locked.id = h.id AND i.lease_epoch = h.epoch AND i.lease_owner = ${workerId}
    RETURNING i.id`,
  );
  const kept = new Set(rowsOf<{ id: string }>(result).map((r) => r.id));
  return ids.filter((id) => !kept.has(id));
}

/** Lets other replicas take these rows at once; the owner stays recorded as evidence of a possible run. */
export async function expireLeases(
  db: Db,
  workerId: string,
  now: number,
  held: ReadonlyArray<{ id: string; leaseEpoch: number }>,
): Promise<void> {
  if (held.length === 0) return;
  const ids = held.map((h) => h.id);
  await db.execute(sql`
    WITH locked AS (${lockInIdOrder(ids)})
    UPDATE instances AS i SET lease_expires_at = ${now}, wake_at = ${now}, attempts = GREATEST(i.attempts - 1, 0)
    FROM (SELECT unnest(${sqlTextArray(ids)}) AS id, unnest(${sqlIntArray(held.map((h) => h.leaseEpoch))}) AS epoch) AS h, locked
    WHERE i.id = h.id AND locked.id = h.id AND i.lease_epoch = h.epoch AND i.lease_owner = ${workerId}`);
}

/**
 * Gives back a lease the last write kept for a next advance that will not run here (the engine
 * is stopping): nothing ran under it since that write, so unlike expireLeases it records no
 * owner — the next claim is an ordinary one, not a reclaim of a possibly-run attempt.
 */
export async function releaseKeptLease(
  db: Db,
  workerId: string,
  now: number,
  held: { id: string; leaseEpoch: number },
): Promise<void> {
  await db.execute(sql`
    UPDATE instances SET lease_owner = NULL, lease_expires_at = NULL, wake_at = ${now}
    WHERE id = ${held.id} AND lease_epoch = ${held.leaseEpoch} AND lease_owner = ${workerId} AND status = 'running'`);
}
