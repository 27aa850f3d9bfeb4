import type { Db } from "../storage/db.js";

/**
 * How much stored definition text store.ts keeps in memory per database, in characters: about
 * 23 of the largest definitions allowed (--max-definition-body, 4 MiB, stores at most about
 * 2.8 MB of canonical text for 10,000 tasks), least recently used out first
 * (docs/limits.md#reading-a-large-stored-definition).
 */
export const TEXT_CACHE_CHARS = 64 * 1024 * 1024;

interface Texts {
  /** In order of last use, oldest first (a Map iterates in insertion order). */
  byKey: Map<string, string>;
  chars: number;
}

const byDb = new WeakMap<Db, Texts>();

function textsOf(db: Db): Texts {
  let texts = byDb.get(db);
  if (texts === undefined) {
    texts = { byKey: new Map(), chars: 0 };
    byDb.set(db, texts);
  }
  return texts;
}

/**
 * The stored text of (name, version) if it is kept. Stored versions never change, so a kept
 * text is never stale; only registered versions are kept (a missing one may be registered a
 * moment later).
 */
export function keptText(db: Db, name: string, version: number): string | undefined {
  const { byKey } = textsOf(db);
  const key = `${version}:${name}`;
  const text = byKey.get(key);
  if (text !== undefined) {
    byKey.delete(key);
    byKey.set(key, text);
  }
  return text;
}

/** Keeps the stored text of (name, version), dropping the least recently used past TEXT_CACHE_CHARS. */
export function keepText(db: Db, name: string, version: number, text: string, limit = TEXT_CACHE_CHARS): void {
  const texts = textsOf(db);
  const key = `${version}:${name}`;
  if (text.length > limit || texts.byKey.has(key)) return;
  texts.byKey.set(key, text);
  texts.chars += text.length;
  for (const [oldest, dropped] of texts.byKey) {
    if (texts.chars <= limit) break;
    texts.byKey.delete(oldest);
    texts.chars -= dropped.length;
  }
}
