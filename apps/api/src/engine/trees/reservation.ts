import { type SQL, sql } from "drizzle-orm";
import { type Db, executePrepared, inTransaction, rowsOf } from "../../storage/db.js";
import { sqlTextArray } from "../../storage/sql-arrays.js";
import { lockInIdOrder } from "./lock.js";

/** What a reservation statement reads of the rows it locks (reservation-batch.ts too). */
export const RESERVATION_COLUMNS = [
  "id",
  "status",
  "lease_epoch",
  "tree_size",
  "reserved_children",
  "reserved_epoch",
] as const;

// Exact tree sizes with reservations (docs/limits.md#trees). The invariant every statement here
// and the advance write (pump/commit.ts) keep:
//
//   root.tree_size >= (rows of the tree) + (sum of reserved_children over the tree's rows)
//
// and a child row is only ever inserted by the write of an advance that reserved it, in the
// statement that sets its spawner's reserved_children back to 0. So no tree ever holds more
// rows than its root's tree_size, and a reservation that fits under the limit keeps the tree
// under it. tree_size only rises under the root's row lock, here and in the batched form of the
// same statement (reservation-batch.ts), which the engine's spawns use.

/** The spawner as its advance holds it: `leaseEpoch` is the epoch its claim took (LeasedRow.leaseEpoch). */
export interface Spawner {
  id: string;
  rootId: string;
  leaseEpoch: number;
}

export type TreeReservation =
  /** Reserved: the children fit, counted in the root's tree_size until the spawner's write lands. */
  | { outcome: "reserved"; depth: number }
  /** The spawner is `depth` levels below its root: its children would pass the depth limit. Nothing reserved. */
  | { outcome: "too_deep"; depth: number }
  /** The tree holds exactly `size` instances (its rows and live reservations): the children would pass the limit. */
  | { outcome: "full"; depth: number; size: number }
  /** The spawner's lease epoch moved (reclaimed, or decided by an operator): its write will be fenced out. */
  | { outcome: "fenced" };

/**
 * A reservation another advance may still turn into rows: its spawner is still at the lease
 * epoch that reserved (that advance's write would still pass the fence) in a status from which
 * the write can still insert children — running or pausing now, or paused/failed/failing and
 * revived by resume or retry, which keep the epoch. A cancelling spawner's write lands it
 * cancelled with no children; completed, raised and cancelled rows are final. Counting a
 * reservation live that is not only makes a refusal a little early; the reverse would let the
 * tree pass the limit, so add a new status here only after checking which side it is on.
 */
const LIVE = (i: string) =>
  sql.raw(
    `(${i}.reserved_children > 0 AND ${i}.reserved_epoch IS NOT DISTINCT FROM ${i}.lease_epoch AND ${i}.status NOT IN ('completed', 'raised', 'cancelled', 'cancelling'))`,
  );

/**
 * Reserves `children` more instances in the spawner's tree, fenced: in ONE statement when they
 * fit the root's tree_size (an upper bound); otherwise the tree is counted exactly under the
 * root's lock and the reservation tried once more, so a refusal always comes from an exact
 * count. `knownDepth` (the engine remembers depths; they never change) saves the walk up.
 */
export async function reserveInTree(
  db: Db,
  spawner: Spawner,
  children: number,
  limits: { maxDepth: number; maxInstances: number },
  knownDepth: number | undefined,
): Promise<TreeReservation> {
  const first = await tryReserve(db, spawner, children, limits, knownDepth);
  if (first.outcome !== "full") return first;
  return reserveExactly(db, spawner, children, limits, first.depth);
}

/**
 * The reservation after the tree is counted exactly (recount), in one transaction holding the
 * root's lock: what a reservation that did not fit the upper bound tries next. Its refusal is
 * final.
 */
export function reserveExactly(
  db: Db,
  spawner: Spawner,
  children: number,
  limits: { maxDepth: number; maxInstances: number },
  depth: number,
): Promise<TreeReservation> {
  return inTransaction(db, async (tx) => {
    await lockAndRecount(tx, spawner);
    return tryReserve(tx, spawner, children, limits, depth);
  });
}

/** The reservation statement: nothing is written unless the spawner holds its epoch and the children fit. */
async function tryReserve(
  db: Db,
  spawner: Spawner,
  children: number,
  limits: { maxDepth: number; maxInstances: number },
  knownDepth: number | undefined,
): Promise<TreeReservation> {
  const ids = [...new Set([spawner.rootId, spawner.id])];
  const depth: SQL =
    knownDepth !== undefined
      ? sql`depth AS (SELECT ${knownDepth}::int AS d),`
      : sql`up(parent_id, depth) AS (
          SELECT parent_id, 0 FROM instances WHERE id = ${spawner.id}
          UNION ALL
          SELECT i.parent_id, up.depth + 1 FROM instances i JOIN up ON i.id = up.parent_id WHERE up.depth <= ${limits.maxDepth}
        ),
        depth AS (SELECT max(depth) AS d FROM up),`;
  const rows = rowsOf<{
    depth: number | string | null;
    holds: boolean;
    size: number | string | null;
    reserved: boolean;
  }>(
    await executePrepared(
      db,
      sql`
      WITH RECURSIVE ${depth}
      locked AS (${lockInIdOrder(ids, { columns: RESERVATION_COLUMNS })}),
      -- The same fence as the spawner's write (pump/commit.ts): a reservation is only worth
      -- making by an advance whose write can still land.
      spawner AS (
        SELECT * FROM locked
        WHERE id = ${spawner.id} AND lease_epoch = ${spawner.leaseEpoch} AND status IN ('running', 'pausing', 'cancelling')
      ),
      -- A reservation of this spawner under an older epoch is stale (that advance's write was fenced
      -- out): it is dropped from tree_size here, once, and replaced by this one. tree_size is null
      -- only when never set: the recount sets it.
      plan AS (
        SELECT r.tree_size - CASE WHEN s.reserved_epoch = ${spawner.leaseEpoch} THEN 0 ELSE s.reserved_children END
                 + ${children}::int AS size,
               CASE WHEN s.reserved_epoch = ${spawner.leaseEpoch} THEN s.reserved_children ELSE 0 END + ${children}::int AS reserved
        FROM locked r, spawner s, depth
        WHERE r.id = ${spawner.rootId} AND depth.d + 1 <= ${limits.maxDepth}
      ),
      -- One UPDATE for both rows: when the root spawns, root and spawner are one row, and a
      -- statement cannot update a row twice.
      upd AS (
        UPDATE instances AS i
        SET tree_size = CASE WHEN i.id = ${spawner.rootId} THEN p.size ELSE i.tree_size END,
            reserved_children = CASE WHEN i.id = ${spawner.id} THEN p.reserved ELSE i.reserved_children END,
            reserved_epoch = CASE WHEN i.id = ${spawner.id} THEN ${spawner.leaseEpoch}::int ELSE i.reserved_epoch END
        FROM plan p
        WHERE i.id = ANY(${sqlTextArray(ids)}) AND p.size <= ${limits.maxInstances}
        RETURNING i.id
      )
      SELECT (SELECT d FROM depth) AS depth, EXISTS (SELECT 1 FROM spawner) AS holds,
             (SELECT size FROM plan) AS size, EXISTS (SELECT 1 FROM upd) AS reserved,
             -- This statement commits without waiting for its WAL flush, so the root's lock is
             -- held for the statement only, not for a disk flush: spawns of one tree queue on it.
             -- Safe: the children are inserted by a later write that does wait for its flush,
             -- which flushes this commit first; and if a database crash loses this commit, that
             -- write finds no reservation and is refused (pump/commit.ts), never unreserved.
             set_config('synchronous_commit', 'off', true) AS async_commit`,
    ),
  );
  const row = rows[0];
  const depthOf = Number(row?.depth ?? 0);
  if (depthOf + 1 > limits.maxDepth) return { outcome: "too_deep", depth: depthOf };
  if (row === undefined || !row.holds) return { outcome: "fenced" };
  if (row.reserved) return { outcome: "reserved", depth: depthOf };
  return {
    outcome: "full",
    depth: depthOf,
    size: row.size === null ? Number.NaN : Number(row.size) - children,
  };
}

/**
 * Sets the root's tree_size to the tree's exact size — its rows plus its live reservations —
 * and drops the stale reservations (sets them to 0), so none is ever subtracted twice. Every
 * row it changes is locked first, with the root and the spawner, in the one id order (a row
 * locked out of order here, while a write batch holding it waits for the root, would
 * deadlock). So no reservation moves meanwhile; a write landing meanwhile (children inserted,
 * its reservation cleared, one statement) is seen whole or not at all. A reservation that goes
 * stale after the lock is counted as live: an over-count, never an under-count.
 */
async function lockAndRecount(tx: Db, spawner: Spawner): Promise<void> {
  const rootId = spawner.rootId;
  const stale = rowsOf<{ id: string }>(
    await tx.execute(
      sql`SELECT i.id FROM instances AS i WHERE i.root_id = ${rootId} AND i.reserved_children > 0 AND NOT ${LIVE("i")}`,
    ),
  ).map((r) => String(r.id));
  const locked = [...new Set([rootId, spawner.id, ...stale])];
  // In a statement of its own, before the count: the count then runs on a snapshot taken after
  // every reservation that committed before this lock (one statement's snapshot predates the
  // locks it waits for, and would miss them).
  await tx.execute(lockInIdOrder(locked));
  const mine = sqlTextArray(locked);
  await tx.execute(sql`
    WITH counted AS (
      SELECT count(*)::int AS n,
             coalesce(sum(i.reserved_children) FILTER (WHERE NOT (i.id = ANY(${mine}) AND NOT ${LIVE("i")})), 0)::int AS held
      FROM instances AS i WHERE i.root_id = ${rootId}
    )
    UPDATE instances AS i
    SET tree_size = CASE WHEN i.id = ${rootId} THEN c.n + c.held ELSE i.tree_size END,
        reserved_children = CASE WHEN ${LIVE("i")} THEN i.reserved_children ELSE 0 END
    FROM counted c
    WHERE i.id = ANY(${mine})`);
}
