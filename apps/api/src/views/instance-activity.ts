// GET /instances/activity (docs/api.md "Activity over time"): settled roots per slice of a
// window, per process and status.
import { ACTIVITY_GROUPS_MAX, ACTIVITY_WINDOWS, type ActivityWindow, type InstanceActivity } from "@baton/actions";
import { iso } from "../format.js";
import { type Db, queryRows } from "../storage/db.js";
import { textArray } from "../storage/sql-arrays.js";

/**
 * The counts of the window ending with the slice that holds `now`. The WHERE repeats the
 * predicate of instances_settled_idx word for word (parent_id IS NULL AND status IN (…)), which
 * is how PostgreSQL proves the partial index applies; with (updated_at, process, status) in it,
 * the window is one index-only range scan. `only`: the processes a scoped caller may see.
 */
export async function instanceActivity(
  db: Db,
  window: ActivityWindow,
  now: number,
  query: { process?: string },
  only: readonly string[] | null,
): Promise<InstanceActivity> {
  const { ms, bucketMs } = ACTIVITY_WINDOWS[window];
  const to = Math.floor(now / bucketMs) * bucketMs + bucketMs;
  const from = to - ms;
  const params: unknown[] = [from, to, bucketMs];
  const where = [
    "parent_id IS NULL AND status IN ('completed', 'failed', 'raised')",
    "updated_at >= $1",
    "updated_at < $2",
  ];
  if (query.process !== undefined) {
    params.push(query.process);
    where.push(`process = $${params.length}`);
  }
  if (only !== null) {
    params.push(textArray(only));
    where.push(`process = ANY($${params.length}::text[])`);
  }
  const rows = await queryRows<{ slice: string | number; process: string; status: string; count: string | number }>(
    db,
    `SELECT (updated_at - $1) / $3 AS slice, process, status, count(*) AS count
     FROM instances WHERE ${where.join(" AND ")}
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 LIMIT ${ACTIVITY_GROUPS_MAX + 1}`,
    params,
  );
  const truncated = rows.length > ACTIVITY_GROUPS_MAX;
  return {
    window,
    bucket_ms: bucketMs,
    from: iso(from),
    to: iso(to),
    groups: rows.slice(0, ACTIVITY_GROUPS_MAX).map((row) => ({
      at: iso(from + Number(row.slice) * bucketMs),
      process: row.process,
      status: row.status as InstanceActivity["groups"][number]["status"],
      count: Number(row.count),
    })),
    truncated,
  };
}
