import { eq, sql } from "drizzle-orm";
import { type Db, queryRows } from "../storage/db.js";
import { definitions, instances, schedules } from "../storage/schema/index.js";

// What a scope decision needs to read (docs/auth.md "Scopes"): the process a target belongs
// to. auth/scope.ts decides; these only read, each in one indexed statement.

/** The process of the root of `id`'s tree (a tree belongs to its root's process); undefined when no such instance. */
export async function rootProcessOf(db: Db, id: string): Promise<string | undefined> {
  const [row] = await queryRows<{ process: string }>(
    db,
    "SELECT r.process FROM instances i JOIN instances r ON r.id = i.root_id WHERE i.id = $1",
    [id],
  );
  return row?.process;
}

/** The process of instance `id` itself (external tasks belong to the process that declares them). */
export async function ownProcessOf(db: Db, id: string): Promise<string | undefined> {
  const [row] = await db.select({ process: instances.process }).from(instances).where(eq(instances.id, id)).limit(1);
  return row?.process;
}

/** The target process of schedule `name`; undefined when there is no such schedule. */
export async function scheduleProcessOf(db: Db, name: string): Promise<string | undefined> {
  const [row] = await db
    .select({ process: schedules.process })
    .from(schedules)
    .where(eq(schedules.name, name))
    .limit(1);
  return row?.process;
}

/**
 * `exact` and the registered process names starting with one of `prefixes` (`orders-` of
 * `orders-*`). Definitions hold a row per version, a small table beside instances; an exact
 * name is kept whether registered or not (a filter by it matches nothing until it is).
 */
export async function processNamesMatching(db: Db, exact: string[], prefixes: string[]): Promise<string[]> {
  const names = new Set(exact);
  for (const prefix of prefixes) {
    const rows = await db
      .selectDistinct({ name: definitions.name })
      .from(definitions)
      .where(sql`starts_with(${definitions.name}, ${prefix})`);
    for (const row of rows) names.add(row.name);
  }
  return [...names].sort();
}
