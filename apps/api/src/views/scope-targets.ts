import { eq, sql } from "drizzle-orm";
import { type Db, queryRows } from "../storage/db.js";
import { definitions, instances, schedules } from "../storage/schema/index.js";
import { textArray } from "../storage/sql-arrays.js";

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

/** The process of the instance each claim token hash was handed out for (unknown hashes are absent). */
export async function claimProcesses(db: Db, hashes: readonly string[]): Promise<Map<string, string>> {
  if (hashes.length === 0) return new Map();
  const rows = await queryRows<{ token_hash: string; process: string }>(
    db,
    "SELECT c.token_hash, i.process FROM external_claims c JOIN instances i ON i.id = c.instance_id WHERE c.token_hash = ANY($1::text[])",
    [textArray(hashes)],
  );
  return new Map(rows.map((r) => [r.token_hash, r.process]));
}

/**
 * Whether an instance of `processes` holds object `ref` in its state or output (its own process
 * or its root's), or an external task of theirs waits with it in its input. A scan of those
 * processes' rows: only a scoped caller's object fetch asks (docs/auth.md "Scopes").
 */
export async function objectHeldBy(db: Db, ref: string, processes: readonly string[]): Promise<boolean> {
  if (processes.length === 0) return false;
  const rows = await queryRows<{ one: number }>(
    db,
    `SELECT 1 AS one FROM instances i
     WHERE (strpos(i.state, $1) > 0 OR strpos(coalesce(i.output, ''), $1) > 0)
       AND (i.process = ANY($2::text[])
            OR EXISTS (SELECT 1 FROM instances r WHERE r.id = i.root_id AND r.process = ANY($2::text[])))
     UNION ALL
     SELECT 1 AS one FROM external_waits w JOIN instances i ON i.id = w.instance_id
     WHERE strpos(w.input, $1) > 0 AND i.process = ANY($2::text[])
     LIMIT 1`,
    [ref, textArray(processes)],
  );
  return rows.length > 0;
}
