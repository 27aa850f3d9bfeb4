import { parseJson } from "@baton/expr";
import type { Definition } from "@baton/model";
import { and, eq, inArray, like } from "drizzle-orm";
import type { Db } from "../storage/db.js";
import { perDbCache } from "../storage/per-db-cache.js";
import { definitions, instances } from "../storage/schema/index.js";
import { secretValues } from "../engine/secrets.js";

// Secrets for the API views: the HTTP layer shows rows, not compiled definitions, so it looks
// the definition up by (process, version). Definitions are immutable, so each is read once.

const secretsOf = perDbCache<Promise<string[]>>();

/** The secret values of process `name` version `version` as read from `env` (see secretValues). */
export function processSecrets(db: Db, env: NodeJS.ProcessEnv, name: string, version: number): Promise<string[]> {
  const cache = secretsOf(db);
  const key = `${version}:${name}`;
  let entry = cache.get(key);
  if (entry === undefined) {
    entry = loadSecrets(db, env, name, version);
    cache.set(key, entry);
    entry.catch(() => cache.delete(key));
  }
  return entry;
}

async function loadSecrets(db: Db, env: NodeJS.ProcessEnv, name: string, version: number): Promise<string[]> {
  const rows = await db
    .select({ definition: definitions.definition })
    .from(definitions)
    .where(and(eq(definitions.name, name), eq(definitions.version, version)));
  return rows.length === 0 ? [] : secretValues(parseJson(rows[0].definition) as unknown as Definition, env);
}

/** The secrets of instances' processes shown together (a list page), merged longest first. */
export async function secretsOfRows(
  db: Db,
  env: NodeJS.ProcessEnv,
  rows: ReadonlyArray<{ process: string; version: number }>,
): Promise<string[]> {
  const keys = new Map(rows.map((r) => [`${r.version}:${r.process}`, r]));
  const lists = await Promise.all([...keys.values()].map((r) => processSecrets(db, env, r.process, r.version)));
  return [...new Set(lists.flat())].sort((a, b) => b.length - a.length);
}

/**
 * The secrets of every process in the trees of these rows: a value a parent passes to a child
 * (its input) or a child hands back (its output) is redacted in the views of both, whichever
 * of the two processes declares it secret.
 */
export async function treeSecrets(
  db: Db,
  env: NodeJS.ProcessEnv,
  rows: ReadonlyArray<{ rootId: string; process: string; version: number }>,
): Promise<string[]> {
  if (rows.length === 0) return [];
  const rootIds = [...new Set(rows.map((r) => r.rootId))];
  const members = await db
    .selectDistinct({ process: instances.process, version: instances.version })
    .from(instances)
    .where(inArray(instances.rootId, rootIds));
  return secretsOfRows(db, env, [...rows, ...members]);
}

/**
 * Every secret of every registered definition: a stored object (GET /objects) is addressed by
 * content, not by instance, so it is redacted with all of them. Re-read on each call so a
 * definition registered since is covered.
 */
export async function allSecrets(db: Db, env: NodeJS.ProcessEnv): Promise<string[]> {
  const rows = await db
    .select({ definition: definitions.definition })
    .from(definitions)
    .where(like(definitions.definition, '%"secret"%'));
  const values = rows.flatMap((r) => secretValues(parseJson(r.definition) as unknown as Definition, env));
  return [...new Set(values)].sort((a, b) => b.length - a.length);
}
