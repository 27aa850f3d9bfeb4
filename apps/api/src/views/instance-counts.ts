// GET /instances/counts (docs/api.md "Counts"): the list filters, grouped by one or two dimensions.
import {
  COUNT_DIMENSIONS,
  COUNT_GROUPS_MAX,
  type CountDimension,
  type InstanceCountGroup,
  type InstanceCounts,
  type InstanceFilters,
} from "@baton/actions";
import { count, type SQL } from "drizzle-orm";
import { invalid } from "../refusal.js";
import { type Db, queryRows } from "../storage/db.js";
import { instances } from "../storage/schema/index.js";
import { textArray } from "../storage/sql-arrays.js";
import { instanceFilters, likeLiteral } from "./instance-lists.js";

const COLUMNS = {
  status: instances.status,
  process: instances.process,
  error_code: instances.errorCode,
  phase: instances.phase,
  task: instances.task,
} as const;

/** `by` as given ("status", "status,process"); the registry has checked each name, not repeats. */
export function countDimensions(by: string | readonly string[] | undefined): CountDimension[] {
  const dimensions = (typeof by === "object" ? by.join(",") : (by ?? "status")).split(",") as CountDimension[];
  if (dimensions.length === 2 && dimensions[0] === dimensions[1])
    throw invalid(
      `query parameter "by" names "${dimensions[0]}" twice; give one dimension or two different ones from: ${COUNT_DIMENSIONS.join(", ")}`,
      [{ path: "query.by", message: "repeated dimension" }],
    );
  return dimensions;
}

/**
 * The counts of GET /instances/counts. Filters on the counted dimensions alone (status, process,
 * phase, error_code, children) are read from the counters (instance_counts plus the pending
 * deltas, storage/schema/instances.ts): a cost of the groups, not of the rows. Any other filter
 * (task, version, key, parent_id, a time bound) scans the matching rows.
 */
export async function countInstances(
  db: Db,
  query: Partial<InstanceFilters>,
  by: CountDimension[],
  only: readonly string[] | null = null,
): Promise<InstanceCounts> {
  // The counters know each row's own process, not its root's: a scoped count of children scans
  // (instance-lists.ts scopedRows), so it never counts a child of another scope's tree.
  // The counters keep no task: a count by task scans the rows (narrow it with process and status).
  const counters = countersAnswer(query) && !by.includes("task") && (only === null || query.children !== true);
  return counters ? countFromCounters(db, query, by, only) : countByScan(db, instanceFilters(query, only), by);
}

/** Whether every filter given is one the counters keep apart. */
function countersAnswer(query: Partial<InstanceFilters>): boolean {
  return (
    query.task === undefined &&
    query.key === undefined &&
    query.waiting_for === undefined &&
    query.wait_key === undefined &&
    query.parent_id === undefined &&
    (query.version === undefined || query.version === 0) &&
    query.created_after === undefined &&
    query.created_before === undefined &&
    query.updated_after === undefined &&
    query.updated_before === undefined
  );
}

/** The counters' columns: '' stands for an absent phase or error code (they are key columns). */
const COUNTER_COLUMNS: Record<Exclude<CountDimension, "task">, string> = {
  status: "status",
  process: "process",
  error_code: "nullif(error_code, '')",
  phase: "nullif(phase, '')",
};

async function countFromCounters(
  db: Db,
  query: Partial<InstanceFilters>,
  by: CountDimension[],
  only: readonly string[] | null,
): Promise<InstanceCounts> {
  const params: unknown[] = [];
  const where: string[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (query.children !== true) where.push("root");
  if (query.status !== undefined) {
    const statuses = [...new Set(String(query.status).split(","))];
    where.push(`status IN (${statuses.map(param).join(", ")})`);
  }
  if (query.process !== undefined) where.push(`process = ${param(query.process)}`);
  if (only !== null) where.push(`process = ANY(${param(textArray(only))}::text[])`);
  if (query.phase !== undefined) where.push(`phase = ${param(query.phase)}`);
  if (query.error_code !== undefined) where.push(`error_code = ${param(query.error_code)}`);
  if (query.error_code_prefix !== undefined)
    where.push(`error_code LIKE ${param(`${likeLiteral(query.error_code_prefix)}%`)}`);
  // countInstances never sends a count by task here.
  const columns = by.map(
    (dimension) => `${COUNTER_COLUMNS[dimension as Exclude<CountDimension, "task">]} AS ${dimension}`,
  );
  const keys = by.map((_, i) => String(i + 1));
  // Totals and pending deltas in one statement: the rollup moves rows between them in one
  // transaction, so one snapshot sees every row in exactly one of the two.
  const rows = await queryRows<Record<string, string | number | null>>(
    db,
    `SELECT ${columns.join(", ")}, sum(n)::bigint AS count
     FROM (SELECT status, process, phase, error_code, root, n FROM instance_counts
           UNION ALL SELECT status, process, phase, error_code, root, n FROM instance_count_deltas) c
     ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
     GROUP BY ${keys.join(", ")} HAVING sum(n) <> 0 ORDER BY ${keys.join(", ")}`,
    params,
  );
  const groups = rows.map((row) => ({ ...row, count: Number(row.count) }));
  const total = groups.reduce((sum, group) => sum + group.count, 0);
  const truncated = groups.length > COUNT_GROUPS_MAX;
  // Each group row holds exactly the selected dimension columns and its count.
  return { by, groups: groups.slice(0, COUNT_GROUPS_MAX) as InstanceCountGroup[], total, truncated };
}

/**
 * One GROUP BY over the rows `where` selects, from instances_status_created_idx when it covers
 * them (it holds every dimension); its cost grows with the matching rows, not with the groups.
 */
async function countByScan(db: Db, where: SQL | undefined, by: CountDimension[]): Promise<InstanceCounts> {
  const columns = by.map((dimension) => COLUMNS[dimension]);
  const selection = Object.fromEntries(by.map((dimension) => [dimension, COLUMNS[dimension]]));
  const rows = (await db
    .select({ ...selection, count: count() })
    .from(instances)
    .where(where)
    .groupBy(...columns)
    .orderBy(...columns)
    .limit(COUNT_GROUPS_MAX + 1)) as Array<Record<string, string | number | null>>;
  const truncated = rows.length > COUNT_GROUPS_MAX;
  if (truncated) rows.pop();
  const groups = rows.map((row) => ({ ...row, count: Number(row.count) }));
  let total = groups.reduce((sum, group) => sum + group.count, 0);
  if (truncated) {
    const [all] = await db.select({ n: count() }).from(instances).where(where);
    total = Number(all?.n ?? 0);
  }
  // Each group row holds exactly the selected dimension columns and its count.
  return { by, groups: groups as InstanceCountGroup[], total, truncated };
}
