import { sql } from "drizzle-orm";
import { type Db, executePrepared, rowsOf } from "../../storage/db.js";
import { storableJson } from "../../storage/text.js";
import { sqlTextArray } from "../../storage/sql-arrays.js";
import { lockInIdOrder } from "./lock.js";
import {
  RESERVATION_COLUMNS,
  reserveExactly,
  reserveInTree,
  type Spawner,
  type TreeReservation,
} from "./reservation.js";

// The reservations of one engine's spawns, per tree, ONE statement at a time (docs/limits.md#trees):
// every reservation of a tree locks its root row, so spawns in flight together in one tree would
// queue on that lock one statement each. Instead the spawns that arrive while a tree's statement
// is in flight wait and go together in the next one, as the group commit does for writes
// (pump/commit.ts): the root row is locked and updated once per batch.

interface Waiting {
  spawner: Spawner;
  children: number;
  depth: number;
  settle: (reservation: Promise<TreeReservation>) => void;
}

/** Per tree: the reservations waiting for the statement in flight to end. Plain data, one per engine. */
export type ReservationQueues = Map<string, Waiting[]>;

export function newReservationQueues(): ReservationQueues {
  return new Map();
}

/**
 * reserveInTree, batched with the other spawns of this engine in the same tree. A spawner of
 * unknown depth takes the single statement (it walks up its ancestors); one past the depth
 * limit reserves nothing; one whose children do not fit the batch's upper bound is counted
 * exactly (reserveExactly), so a refusal still always comes from an exact count.
 */
export function reserveInBatch(
  db: Db,
  queues: ReservationQueues,
  spawner: Spawner,
  children: number,
  limits: { maxDepth: number; maxInstances: number },
  knownDepth: number | undefined,
): Promise<TreeReservation> {
  if (knownDepth === undefined) return reserveInTree(db, spawner, children, limits, undefined);
  if (knownDepth + 1 > limits.maxDepth) return Promise.resolve({ outcome: "too_deep", depth: knownDepth });
  return new Promise<TreeReservation>((resolve, reject) => {
    const waiting = queues.get(spawner.rootId);
    const entry: Waiting = {
      spawner,
      children,
      depth: knownDepth,
      settle: (reservation) => reservation.then(resolve, reject),
    };
    if (waiting !== undefined) {
      waiting.push(entry);
      return;
    }
    queues.set(spawner.rootId, []);
    void drain(db, queues, spawner.rootId, [entry], limits);
  });
}

/** Sends `batch`, then whatever queued meanwhile, until the tree's queue is empty. */
async function drain(
  db: Db,
  queues: ReservationQueues,
  rootId: string,
  first: Waiting[],
  limits: { maxDepth: number; maxInstances: number },
): Promise<void> {
  let batch = first;
  while (batch.length > 0) {
    // One request per spawner per statement (an advance reserves once; a second waits its turn).
    const seen = new Set<string>();
    const now: Waiting[] = [];
    const later: Waiting[] = [];
    for (const w of batch) {
      (seen.has(w.spawner.id) ? later : now).push(w);
      seen.add(w.spawner.id);
    }
    try {
      const granted = await reserveBatch(db, rootId, now, limits.maxInstances);
      for (const w of now) {
        const outcome = granted.get(w.spawner.id);
        if (outcome === "reserved") w.settle(Promise.resolve({ outcome: "reserved", depth: w.depth }));
        else if (outcome === "fenced") w.settle(Promise.resolve({ outcome: "fenced" }));
        else w.settle(reserveExactly(db, w.spawner, w.children, limits, w.depth));
      }
    } catch (error) {
      for (const w of now) w.settle(Promise.reject(error));
    }
    batch = [...later, ...(queues.get(rootId) ?? [])];
    queues.set(rootId, []);
  }
  queues.delete(rootId);
}

/**
 * The batch statement: locks the root and the spawners in id order; of the spawners still at
 * their lease epoch (the others are `fenced`), grants the longest prefix, in arrival order,
 * whose running total never takes tree_size past the limit, and moves tree_size once by what
 * it granted. The rest are `unfit`: each is counted exactly next.
 */
async function reserveBatch(
  db: Db,
  rootId: string,
  batch: readonly Waiting[],
  limit: number,
): Promise<Map<string, "reserved" | "fenced" | "unfit">> {
  const ids = [...new Set([rootId, ...batch.map((w) => w.spawner.id)])];
  const requests = batch.map((w, ord) => ({ ord, id: w.spawner.id, epoch: w.spawner.leaseEpoch, n: w.children }));
  const rows = rowsOf<{ id: string; holds: boolean; reserved: boolean }>(
    await executePrepared(
      db,
      sql`
      WITH req AS (SELECT * FROM jsonb_to_recordset(${storableJson(requests)}::jsonb) AS r(ord int, id text, epoch int, n int)),
      locked AS (${lockInIdOrder(ids, { columns: RESERVATION_COLUMNS })}),
      -- The same fence as the spawner's write (pump/commit.ts). A reservation of a spawner under
      -- an older epoch is stale: dropped from tree_size here (delta), once, and replaced.
      held AS (
        SELECT r.ord, r.id, r.epoch,
               r.n - CASE WHEN l.reserved_epoch = r.epoch THEN 0 ELSE l.reserved_children END AS delta,
               CASE WHEN l.reserved_epoch = r.epoch THEN l.reserved_children ELSE 0 END + r.n AS reserved
        FROM req r JOIN locked l ON l.id = r.id
        WHERE l.lease_epoch = r.epoch AND l.status IN ('running', 'pausing', 'cancelling')
      ),
      running AS (SELECT h.*, sum(h.delta) OVER (ORDER BY h.ord) AS upto FROM held h),
      -- A delta can be negative (a dropped stale reservation), so a prefix is granted only while
      -- the highest running total so far fits: tree_size never passes the limit at any step.
      peaked AS (SELECT r.*, max(r.upto) OVER (ORDER BY r.ord) AS peak FROM running r),
      granted AS (
        SELECT p.* FROM peaked p JOIN locked root ON root.id = ${rootId} WHERE root.tree_size + p.peak <= ${limit}
      ),
      -- One UPDATE for every row: the root may be a spawner too, and a statement cannot update a row twice.
      upd AS (
        UPDATE instances AS i
        SET tree_size = CASE WHEN i.id = ${rootId}
                             THEN (SELECT tree_size FROM locked WHERE id = ${rootId}) + (SELECT coalesce(sum(delta), 0) FROM granted)
                             ELSE i.tree_size END,
            reserved_children = COALESCE(g.reserved, i.reserved_children),
            reserved_epoch = COALESCE(g.epoch, i.reserved_epoch)
        FROM unnest(${sqlTextArray(ids)}) AS v(id) LEFT JOIN granted g ON g.id = v.id
        WHERE i.id = v.id AND (g.id IS NOT NULL OR (i.id = ${rootId} AND EXISTS (SELECT 1 FROM granted)))
        RETURNING i.id
      )
      -- Committed without waiting for the WAL flush, as the single reservation (reservation.ts says why that is safe).
      SELECT r.id, h.id IS NOT NULL AS holds, g.id IS NOT NULL AS reserved,
             set_config('synchronous_commit', 'off', true) AS async_commit
      FROM req r LEFT JOIN held h ON h.id = r.id LEFT JOIN granted g ON g.id = r.id`,
    ),
  );
  return new Map(rows.map((r) => [String(r.id), r.reserved ? "reserved" : r.holds ? "unfit" : "fenced"]));
}
