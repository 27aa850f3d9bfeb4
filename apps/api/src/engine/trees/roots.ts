import type { InstanceFilters } from "@baton/actions";
import { and, asc, eq, gt, type SQL } from "drizzle-orm";
import { invalid, notFound } from "../../refusal.js";
import type { Db } from "../../storage/db.js";
import { instances } from "../../storage/schema/index.js";
import { instanceFilters } from "../../views/instance-lists.js";

// Which root a tree verb acts on: the one a single verb names, or the roots a bulk verb's
// filters select (docs/api.md "Bulk verbs").

/**
 * The verbs act on a whole tree through its root: not_found for an unknown id, invalid for a
 * child's (naming the root). `named` is the id as the caller wrote it, for the messages.
 */
export async function requireRoot(db: Db, id: string, verb: string, named = id): Promise<string> {
  const [row] = await db
    .select({ id: instances.id, rootId: instances.rootId, parentId: instances.parentId })
    .from(instances)
    .where(eq(instances.id, id));
  if (row === undefined) throw notFound(`instance ${named} does not exist`);
  if (row.parentId !== null || row.rootId !== row.id) {
    throw invalid(`instance ${named} is a child; ${verb} acts on a whole tree: use its root id ${row.rootId}`, [
      { path: "id", message: `a child instance; use the root id ${row.rootId}` },
    ]);
  }
  return row.id;
}

/**
 * Up to `limit` ids, in id order after `after()`, of the instances `filters` select (a bulk verb
 * passes the list filters without the tree ones, so they are roots); `version` narrows them to
 * one version. `after` is read once the filters are checked: a bad filter is refused first.
 */
export async function selectRoots(
  db: Db,
  filters: Partial<InstanceFilters>,
  after: () => string | undefined,
  limit: number,
  version?: number,
  only: readonly string[] | null = null,
): Promise<string[]> {
  const where: Array<SQL | undefined> = [instanceFilters(filters, only)];
  const start = after();
  if (start !== undefined) where.push(gt(instances.id, start));
  if (version !== undefined) where.push(eq(instances.version, version));
  const rows = await db
    .select({ id: instances.id })
    .from(instances)
    .where(and(...where))
    .orderBy(asc(instances.id))
    .limit(limit);
  return rows.map((row) => row.id);
}
