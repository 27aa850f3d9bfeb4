import type { Db } from "../../storage/db.js";
import { perDbCache } from "../../storage/per-db-cache.js";
import type { ClaimFacts } from "./resolve.js";

// What this process remembers of the claims it handed out (claims.ts), so that their resolve
// needs no read: the facts of each claim, and the parked row the claim saw, within bounds.

/** Bound on remembered claims: a worker that never answers must not grow the map without end. */
const MAX_REMEMBERED_CLAIMS = 20_000;
/** Bound on the parked states kept with them, in characters, all claims together and each one. */
const MAX_PARKED_CHARS = 16 * 1024 * 1024;
const MAX_PARKED_CHARS_EACH = 64 * 1024;

/**
 * Claims this process handed out, by token hash, until answered (or pushed out by newer ones).
 * Only a hint: the facts of a claim never change, and the resolve statement re-checks every one
 * of them against the rows, so a stale entry costs a fallback, never a wrong write.
 */
const claimFactsOf = perDbCache<ClaimFacts>();

const parkedCharsOf = new WeakMap<Map<string, ClaimFacts>, { chars: number }>();

export function claimFacts(db: Db) {
  const cache = claimFactsOf(db);
  let held = parkedCharsOf.get(cache);
  if (held === undefined) parkedCharsOf.set(cache, (held = { chars: 0 }));
  const kept = held;
  const remove = (hash: string) => {
    const facts = cache.get(hash);
    if (facts === undefined) return;
    kept.chars -= facts.parked?.stateText.length ?? 0;
    cache.delete(hash);
  };
  return {
    get: (hash: string) => cache.get(hash),
    delete: remove,
    set(hash: string, facts: ClaimFacts) {
      remove(hash);
      if (cache.size >= MAX_REMEMBERED_CLAIMS) {
        const oldest = cache.keys().next().value;
        if (oldest !== undefined) remove(oldest);
      }
      // Past the bound the claim is remembered without its row: its resolve reads the row by key.
      const chars = facts.parked?.stateText.length ?? 0;
      const keep = chars <= MAX_PARKED_CHARS_EACH && kept.chars + chars <= MAX_PARKED_CHARS;
      const entry = keep || facts.parked === undefined ? facts : { ...facts, parked: undefined };
      if (keep) kept.chars += chars;
      cache.set(hash, entry);
    },
  };
}
