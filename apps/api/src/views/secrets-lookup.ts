import { inArray } from "drizzle-orm";
import type { Db } from "../storage/db.js";
import { type LruCache, lruCache } from "../storage/per-db-cache.js";
import { instances } from "../storage/schema/index.js";
import { childReferences } from "../definitions/child-references.js";
import { definitionsDeclaringSecrets, definitionsNamed, storedDefinition } from "../definitions/store.js";
import { secretValues } from "../engine/secrets.js";

// Secrets for the API views: the HTTP layer shows rows, not compiled definitions, so it looks
// the definition up by (process, version) through the one reader (definitions/store.ts).

/** The secret values of process `name` version `version` as read from `env` (see secretValues). */
export async function processSecrets(db: Db, env: NodeJS.ProcessEnv, name: string, version: number): Promise<string[]> {
  const definition = await storedDefinition(db, name, version);
  return definition === undefined ? [] : secretValues(definition, env);
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
  const values = (await definitionsDeclaringSecrets(db)).flatMap((definition) => secretValues(definition, env));
  return [...new Set(values)].sort((a, b) => b.length - a.length);
}

/**
 * Root process names whose secrets viewSecrets keeps per database, least recently viewed out
 * first (docs/limits.md#cached-definitions): a dropped one is looked up again on its next view.
 */
export const VIEW_SECRETS_KEPT = 1_000;

interface ViewSecrets {
  /** The definition count these entries were computed at; any other count empties the cache. */
  seen: number;
  /** Root process name → the secrets of every process its trees can contain. */
  byRoot: LruCache<string[]>;
}

const viewSecretsOf = new WeakMap<Db, ViewSecrets>();

/**
 * The secrets to redact in a view of any instance of a tree whose root runs `rootProcess`:
 * those of every stored version of that process and, transitively, of every process its child
 * tasks name (a tree only ever holds processes its root's definitions name; every version, so
 * an upgraded tree is covered too). Cached per root process until a definition is registered:
 * `definitionsSeen` is read in the same snapshot as the row (instance-read.ts), definitions
 * are never deleted, and a row's definitions were stored before it, so an unchanged count
 * means no definition this row's tree can use is missing from the cache. A failed lookup is
 * not kept.
 */
export function viewSecrets(db: Db, env: NodeJS.ProcessEnv, rootProcess: string, definitionsSeen: number) {
  let cache = viewSecretsOf.get(db);
  if (cache === undefined || cache.seen !== definitionsSeen) {
    cache = { seen: definitionsSeen, byRoot: lruCache({ bound: () => VIEW_SECRETS_KEPT, weigh: () => 1 }) };
    viewSecretsOf.set(db, cache);
  }
  return cache.byRoot.load(rootProcess, () => closureSecrets(db, env, rootProcess));
}

/** The root process names viewSecrets keeps for `db`, least recently viewed first: for tests. */
export function keptViewSecrets(db: Db): string[] {
  return viewSecretsOf.get(db)?.byRoot.keys() ?? [];
}

async function closureSecrets(db: Db, env: NodeJS.ProcessEnv, rootProcess: string): Promise<string[]> {
  const seen = new Set<string>([rootProcess]);
  let next = [rootProcess];
  const values = new Set<string>();
  while (next.length > 0) {
    const found: string[] = [];
    for (const definition of await definitionsNamed(db, next)) {
      for (const value of secretValues(definition, env)) values.add(value);
      for (const ref of childReferences(definition)) {
        if (!seen.has(ref.child)) {
          seen.add(ref.child);
          found.push(ref.child);
        }
      }
    }
    next = found;
  }
  return [...values].sort((a, b) => b.length - a.length);
}
