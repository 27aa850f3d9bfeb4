import type { Definition } from "@baton/model";
import { parseJson } from "@baton/expr";
import { and, desc, eq, sql } from "drizzle-orm";
import { notFound } from "../refusal.js";
import type { Db } from "../storage/db.js";
import { definitions } from "../storage/schema/index.js";

// Definitions are immutable once stored: a (name, version) always parses to the same value,
// so the parsed form is cached for the life of the process.
const parsed = new Map<string, Definition>();

export function parseStoredDefinition(name: string, version: number, text: string): Definition {
  const key = `${name}@${version}`;
  let def = parsed.get(key);
  if (!def) {
    def = parseJson(text) as unknown as Definition;
    parsed.set(key, def);
  }
  return def;
}

export interface StoredDefinition {
  name: string;
  version: number;
  definition: Definition;
  hash: string;
  raises: string[];
  actor: string | null;
  createdAt: number;
}

type Row = typeof definitions.$inferSelect;

export function toStored(row: Row): StoredDefinition {
  return {
    name: row.name,
    version: row.version,
    definition: parseStoredDefinition(row.name, row.version, row.definition),
    hash: row.hash,
    raises: JSON.parse(row.raises) as string[],
    actor: row.actor,
    createdAt: row.createdAt,
  };
}

/** The latest version of a process, or undefined when the name was never registered. */
export async function latestDefinition(db: Db, name: string): Promise<StoredDefinition | undefined> {
  const [row] = await db
    .select()
    .from(definitions)
    .where(eq(definitions.name, name))
    .orderBy(desc(definitions.version))
    .limit(1);
  return row ? toStored(row) : undefined;
}

export async function getDefinition(db: Db, name: string, version: number): Promise<StoredDefinition | undefined> {
  const [row] = await db
    .select()
    .from(definitions)
    .where(and(eq(definitions.name, name), eq(definitions.version, version)))
    .limit(1);
  return row ? toStored(row) : undefined;
}

/** Name → authored codes of its latest version, for the registration checks of child tasks. */
export async function latestRaisesByName(db: Db): Promise<Map<string, string[]>> {
  const rows = await db
    .select({ name: definitions.name, raises: definitions.raises })
    .from(definitions)
    .where(
      sql`(${definitions.name}, ${definitions.version}) in (select name, max(version) from definitions group by name)`,
    );
  return new Map(rows.map((r) => [r.name, JSON.parse(r.raises) as string[]]));
}

/**
 * Serialises registrations of one process name across replicas for the rest of the
 * transaction, so two concurrent PUTs cannot both take version N+1.
 */
export async function lockProcessName(tx: Db, name: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`baton.definition:${name}`}))`);
}

/**
 * A stored definition by name and version (omitted or 0: the latest), or a not_found refusal
 * naming the latest version when only the version is missing.
 */ export async function requireDefinition(db: Db, name: string, version?: number): Promise<StoredDefinition> {
  if (version === undefined || version === 0) {
    const latest = await latestDefinition(db, name);
    if (!latest) throw notFound(`process "${name}" is not registered`);
    return latest;
  }
  const found = await getDefinition(db, name, version);
  if (found) return found;
  const latest = await latestDefinition(db, name);
  if (!latest) throw notFound(`process "${name}" is not registered`);
  throw notFound(`process "${name}" has no version ${version}; latest is ${latest.version}`);
}
