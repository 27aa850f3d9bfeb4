import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../storage/db.js";
import { sqlTextArray } from "../../storage/sql-arrays.js";

// The one lock order on instance rows: ascending id. Every transaction or statement that locks
// more than one instance row goes through these helpers — the pump's lease renewal, lease release
// and advance batches (the rows and the parents they wake), and every operator verb on a tree.
// Two of them locking overlapping rows in different orders deadlock, and PostgreSQL then aborts
// one (a renewal lost, a whole batch written again row by row, a verb failing with 500).

/** A CTE body that locks the given instance rows in id order (`WITH locked AS (…)`). */
export function lockInIdOrder(ids: readonly string[]): SQL {
  return sql`SELECT id FROM instances WHERE id = ANY(${sqlTextArray(ids)}) ORDER BY id FOR UPDATE`;
}

/** Locks every row of the tree under `rootId`, in id order, before a verb reads or changes any. */
export async function lockTree(tx: Db, rootId: string): Promise<void> {
  await tx.execute(sql`SELECT id FROM instances WHERE root_id = ${rootId} ORDER BY id FOR UPDATE`);
}
