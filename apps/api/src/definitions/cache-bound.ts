import type { Definition } from "@baton/model";
import { DEFAULT_LIMITS } from "../limits.js";
import type { Db } from "../storage/db.js";

// The bound and weights of the caches of stored definitions, parsed (store.ts) and compiled
// (engine/pump/compiled-cache.ts): --limit-definition-cache characters of stored text each,
// per database (docs/limits.md#cached-definitions).

const cacheBounds = new WeakMap<Db, number>();

/** Sets --limit-definition-cache for the caches of stored definitions of `db` (the server does, on start). */
export function boundDefinitionCaches(db: Db, chars: number): void {
  cacheBounds.set(db, chars);
}

/** The characters of stored text whose parsed, and whose compiled, definitions are kept for `db`. */
export function definitionCacheBound(db: Db): number {
  return cacheBounds.get(db) ?? DEFAULT_LIMITS.definitionCache;
}

// Every Definition store.ts hands out was parsed there, from a text of known length.
const textLengthOf = new WeakMap<Definition, number>();

/** Records the characters of the stored text `def` was parsed from (store.ts, once per parse). */
export function weighDefinition(def: Definition, chars: number): void {
  textLengthOf.set(def, chars);
}

/** The weight of a stored definition in the caches: the characters of its stored text. */
export function definitionWeight(def: Definition): number {
  return textLengthOf.get(def) ?? 1;
}
