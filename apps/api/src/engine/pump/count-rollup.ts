import { sql } from "drizzle-orm";
import { type Db, inTransaction, rowsOf } from "../../storage/db.js";

// The instance counters' rollup (storage/schema/instances.ts instanceCounts): moves pending
// delta rows into the totals. One statement deletes a batch of deltas and adds their sums, so
// every snapshot sees a delta either pending or in the totals, never both and never neither;
// readers (views/instance-counts.ts) add the two, so the rollup's pace moves no count.

/** Deltas folded per statement: bounds the statement after a backlog (a pump that was off). */
export const ROLLUP_BATCH = 50_000;
// One rollup at a time across replicas: two folding overlapping totals rows in different orders
// could deadlock. The loser skips its turn; the deltas wait for the next round.
const ROLLUP_LOCK = sql`hashtext('baton.instance_counts')`;

/** Folds up to ROLLUP_BATCH deltas; returns how many it folded (0 when another replica is folding). */
export async function rollUpCounts(db: Db): Promise<number> {
  return inTransaction(db, async (tx) => {
    const [lock] = rowsOf<{ got: boolean }>(
      await tx.execute(sql`SELECT pg_try_advisory_xact_lock(${ROLLUP_LOCK}) AS got`),
    );
    if (lock?.got !== true) return 0;
    const moved = rowsOf<{ n: number }>(
      await tx.execute(sql`
        WITH moved AS (
          DELETE FROM instance_count_deltas
          WHERE ctid = ANY (ARRAY(SELECT ctid FROM instance_count_deltas LIMIT ${ROLLUP_BATCH}))
          RETURNING status, process, phase, error_code, root, n
        ), sums AS (
          SELECT status, process, phase, error_code, root, sum(n)::bigint AS n, count(*) AS rows
          FROM moved GROUP BY status, process, phase, error_code, root
        ), added AS (
          INSERT INTO instance_counts AS c (status, process, phase, error_code, root, n)
          SELECT status, process, phase, error_code, root, n FROM sums
          ON CONFLICT (status, process, phase, error_code, root) DO UPDATE SET n = c.n + excluded.n
        )
        SELECT coalesce(sum(rows), 0)::int AS n FROM sums`),
    );
    // Groups that emptied: a count of 0 is no group (GET /instances/counts lists non-empty ones).
    await tx.execute(sql`DELETE FROM instance_counts WHERE n = 0`);
    return Number(moved[0]?.n ?? 0);
  });
}
