import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../storage/db.js";
import { sqlTextArray } from "../../storage/sql-arrays.js";

// The one lock order on instance rows: ascending id. Every transaction or statement that locks
// more than one instance row goes through these helpers — the pump's lease renewal, lease release
// and advance batches (the rows and the parents they wake), the tree reservations, retention's
// picks and every operator verb on a tree. Two of them locking overlapping rows in different
// orders deadlock, and PostgreSQL then aborts one (a renewal lost, a whole batch written again
// row by row, a verb failing with 500).

export interface LockOptions {
  /** The columns the locking SELECT returns (`id` when absent), for a CTE that reads them. */
  columns?: readonly string[];
  /** Skip rows another transaction holds instead of waiting: never waits, so never closes a cycle. */
  skipLocked?: boolean;
}

function lockWhere(where: SQL, options: LockOptions): SQL {
  const columns = sql.raw((options.columns ?? ["id"]).join(", "));
  const skip = options.skipLocked === true ? sql` SKIP LOCKED` : sql``;
  return sql`SELECT ${columns} FROM instances WHERE ${where} ORDER BY id FOR UPDATE${skip}`;
}

/** A statement (or CTE body, `WITH locked AS (…)`) that locks the given instance rows in id order. */
export function lockInIdOrder(ids: readonly string[], options: LockOptions = {}): SQL {
  return lockWhere(sql`id = ANY(${sqlTextArray(ids)})`, options);
}

/** A statement that locks every row of the trees under `roots`, in id order. */
export function lockTrees(roots: readonly string[], options: LockOptions = {}): SQL {
  return lockWhere(sql`root_id = ANY(${sqlTextArray(roots)})`, options);
}

/** Locks every row of the tree under `rootId`, in id order, before a verb reads or changes any. */
export async function lockTree(tx: Db, rootId: string): Promise<void> {
  await tx.execute(lockWhere(sql`root_id = ${rootId}`, {}));
}
