import type { Db } from "./db.js";

/**
 * A cache of values derived from immutable rows (a stored definition never changes), one map
 * per database handle: tests that open several databases in one process never share entries.
 */
export function perDbCache<V>(): (db: Db) => Map<string, V> {
  const byDb = new WeakMap<Db, Map<string, V>>();
  return (db) => {
    let cache = byDb.get(db);
    if (cache === undefined) {
      cache = new Map();
      byDb.set(db, cache);
    }
    return cache;
  };
}
