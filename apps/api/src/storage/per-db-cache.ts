import type { Db } from "./db.js";

/**
 * A cache of values derived from immutable rows (a stored definition never changes), one map
 * per database handle: tests that open several databases in one process never share entries.
 * Unbounded: only for values whose count is bounded elsewhere; see lruCache otherwise.
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

export interface LruOptions<V> {
  /** The most total weight kept; read at every eviction, so a flag set after the cache is made applies. */
  bound: () => number;
  /** The weight of a fulfilled value. A pending entry weighs nothing and is never evicted. */
  weigh: (value: V) => number;
  /** A rejection kept like a value, weighing 1: a fault of the immutable row itself, not of reading it. */
  keepsFailure?: (error: unknown) => boolean;
}

export interface LruCache<V> {
  /** The entry of `key`, now the most recently used, or undefined. */
  get(key: string): Promise<V> | undefined;
  /**
   * The entry of `key`, or `make()` kept as it: concurrent callers share its pending promise.
   * A rejection is dropped (the next caller makes it again) unless keepsFailure says otherwise.
   */
  load(key: string, make: () => Promise<V>): Promise<V>;
  /** Keeps `value`, already at hand, as the entry of `key`, now the most recently used, unless `key` is kept already. */
  put(key: string, value: V): void;
  /** Forgets `key` (a value known to be stale: "the latest version" of a name); a pending make still answers its callers. */
  drop(key: string): void;
  /** The keys kept, least recently used first: for tests. */
  keys(): string[];
  /** The total weight of the settled entries kept: for tests and metrics. */
  weight(): number;
}

interface Entry<V> {
  value: Promise<V>;
  weight: number;
  settled: boolean;
}

/**
 * Least recently used cache of promised values with a weight each and a total bound
 * (docs/limits.md#cached-definitions). Only for values that can be made again with the same
 * result (derived from immutable rows): an evicted entry is simply made again on its next use.
 * An entry heavier than the whole bound is served to its callers but not kept.
 */
export function lruCache<V>(options: LruOptions<V>): LruCache<V> {
  // In order of last use, oldest first (a Map iterates in insertion order).
  const entries = new Map<string, Entry<V>>();
  let total = 0;
  const evict = () => {
    const bound = options.bound();
    for (const [key, entry] of entries) {
      if (total <= bound) return;
      if (!entry.settled) continue;
      entries.delete(key);
      total -= entry.weight;
    }
  };
  // The entry may have been dropped while pending (a failure of the same key cannot be: one entry per key).
  const settle = (key: string, entry: Entry<V>, weight: number) => {
    entry.settled = true;
    if (entries.get(key) !== entry) return;
    // Served to its callers, never kept: counted, it would first drop every lighter entry kept.
    if (weight > options.bound()) {
      entries.delete(key);
      return;
    }
    entry.weight = weight;
    total += weight;
    evict();
  };
  const get = (key: string) => {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    entries.delete(key);
    entries.set(key, entry);
    return entry.value;
  };
  return {
    get,
    load(key, make) {
      const hit = get(key);
      if (hit !== undefined) return hit;
      const entry: Entry<V> = { value: make(), weight: 0, settled: false };
      entries.set(key, entry);
      entry.value.then(
        (value) => settle(key, entry, options.weigh(value)),
        (error) => {
          if (options.keepsFailure?.(error)) settle(key, entry, 1);
          else if (entries.get(key) === entry) entries.delete(key);
        },
      );
      return entry.value;
    },
    put(key, value) {
      if (entries.has(key)) return;
      const entry: Entry<V> = { value: Promise.resolve(value), weight: 0, settled: false };
      entries.set(key, entry);
      settle(key, entry, options.weigh(value));
    },
    drop(key) {
      const entry = entries.get(key);
      if (entry === undefined) return;
      entries.delete(key);
      // A pending entry was never counted, and settle() skips an entry no longer kept.
      if (entry.settled) total -= entry.weight;
    },
    keys: () => [...entries.keys()],
    weight: () => total,
  };
}

/** An lruCache per database handle (see perDbCache), each bounded by `bound(db)`. */
export function perDbLruCache<V>(
  options: Omit<LruOptions<V>, "bound"> & { bound: (db: Db) => number },
): (db: Db) => LruCache<V> {
  const byDb = new WeakMap<Db, LruCache<V>>();
  return (db) => {
    let cache = byDb.get(db);
    if (cache === undefined) {
      cache = lruCache({ ...options, bound: () => options.bound(db) });
      byDb.set(db, cache);
    }
    return cache;
  };
}
