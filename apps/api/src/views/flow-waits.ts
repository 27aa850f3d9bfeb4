import type { FlowWait, FlowWaitGroup, FlowWaitReason } from "@baton/actions";
import { sql } from "drizzle-orm";
import { iso } from "../format.js";
import { type Db, rowsOf } from "../storage/db.js";
import { sqlTextArray } from "../storage/sql-arrays.js";

// The read side of flow control (docs/flow-control.md "Watching it"): what one instance waits
// for, and the waits grouped by scope and key.

/** What `instanceId` waits for now, if it waits (its wait row; at most one at a time). */
export async function flowWaitOf(db: Db, instanceId: string): Promise<FlowWait | undefined> {
  const [row] = rowsOf<{ reason: string; scope: string; key: string; lim: number; since: unknown }>(
    await db.execute(
      sql`SELECT reason, scope, key, lim, since FROM flow_waits WHERE instance_id = ${instanceId} LIMIT 1`,
    ),
  );
  if (row === undefined) return undefined;
  return {
    reason: row.reason as FlowWaitReason,
    scope: row.scope,
    key: row.key,
    limit: Number(row.lim),
    since: iso(Number(row.since)),
  };
}

/** GET /instances/waits: the groups with most waits first; `only` keeps the scopes of those processes. */
export async function flowWaitGroups(
  db: Db,
  query: { process?: string; reason?: FlowWaitReason; limit?: number },
  only: readonly string[] | null,
): Promise<{ groups: FlowWaitGroup[]; truncated: boolean }> {
  const limit = query.limit ?? 100;
  const where = [sql`true`];
  if (query.reason !== undefined) where.push(sql`w.reason = ${query.reason}`);
  if (query.process !== undefined) where.push(sql`i.process = ${query.process}`);
  if (only !== null) where.push(sql`i.process = ANY(${sqlTextArray(only)})`);
  const rows = rowsOf<{ reason: string; scope: string; key: string; waiting: number; oldest: unknown }>(
    await db.execute(sql`
      SELECT w.reason, w.scope, w.key, count(*)::int AS waiting, min(w.since) AS oldest
      FROM flow_waits w JOIN instances i ON i.id = w.instance_id
      WHERE ${sql.join(where, sql` AND `)} AND i.status IN ('running', 'pausing', 'paused', 'failing', 'cancelling')
      GROUP BY w.reason, w.scope, w.key
      ORDER BY count(*) DESC, min(w.since), w.scope, w.key
      LIMIT ${limit + 1}`),
  );
  return {
    groups: rows.slice(0, limit).map((r) => ({
      reason: r.reason as FlowWaitReason,
      scope: r.scope,
      key: r.key,
      waiting: Number(r.waiting),
      oldest_since: iso(Number(r.oldest)),
    })),
    truncated: rows.length > limit,
  };
}
