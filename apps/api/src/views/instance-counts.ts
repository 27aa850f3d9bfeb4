// GET /instances/counts (docs/api.md "Counts"): the list filters, grouped by one or two dimensions.
import {
  COUNT_DIMENSIONS,
  COUNT_GROUPS_MAX,
  type CountDimension,
  type InstanceCountGroup,
  type InstanceCounts,
} from "@baton/actions";
import { count, type SQL } from "drizzle-orm";
import { invalid } from "../refusal.js";
import type { Db } from "../storage/db.js";
import { instances } from "../storage/schema/index.js";

const COLUMNS = {
  status: instances.status,
  process: instances.process,
  error_code: instances.errorCode,
  phase: instances.phase,
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
 * One GROUP BY over the rows `where` selects. Every dimension is a column of
 * instances_counts_idx, so PostgreSQL answers from that index (an index-only scan once the
 * visibility map is current); its cost grows with the matching rows, not with the groups.
 */
export async function countInstances(db: Db, where: SQL | undefined, by: CountDimension[]): Promise<InstanceCounts> {
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
