import type { Db } from "../storage/db.js";
import { perDbLruCache } from "../storage/per-db-cache.js";

/**
 * How much stored definition text store.ts keeps in memory per database, in characters: about
 * 23 of the largest definitions allowed (--max-definition-body, 4 MiB, stores at most about
 * 2.8 MB of canonical text for 10,000 tasks), least recently used out first
 * (docs/limits.md#reading-a-large-stored-definition).
 */
export const TEXT_CACHE_CHARS = 64 * 1024 * 1024;

const bounds = new WeakMap<Db, number>();
const texts = perDbLruCache<string>({
  bound: (db) => bounds.get(db) ?? TEXT_CACHE_CHARS,
  weigh: (text) => text.length,
});

/** Sets the characters of text kept for `db` instead of TEXT_CACHE_CHARS: for tests. */
export function boundTextCache(db: Db, chars: number): void {
  bounds.set(db, chars);
}

/**
 * The stored text of (name, version) if it is kept, now the most recently used. Stored versions
 * never change, so a kept text is never stale; only registered versions are kept (a missing one
 * may be registered a moment later).
 */
export function keptText(db: Db, name: string, version: number): Promise<string> | undefined {
  return texts(db).get(`${version}:${name}`);
}

/** Keeps the stored text of (name, version), dropping the least recently used past the bound; a text longer than the bound is not kept. */
export function keepText(db: Db, name: string, version: number, text: string): void {
  texts(db).put(`${version}:${name}`, text);
}
