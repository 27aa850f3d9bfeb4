import type { Db } from "../../storage/db.js";

// The claim long-poll (docs/engine.md "Claim long-poll", the `wait_ms` extension of claim): an
// empty claim waits here until this process lands something a claim could take — an external
// task parked by its own engine (commit.ts) or a claim released (claims.ts) — and then claims
// again. Parks by other replicas and claims that lapse are not announced: a waiting claim also
// looks again every RECHECK_MS.

/** How often a waiting claim looks again without being woken. */
export const RECHECK_MS = 1_000;

interface Waits {
  waiters: Set<() => void>;
  closed: boolean;
}

const byDb = new WeakMap<Db, Waits>();

function waitsOf(db: Db): Waits {
  let waits = byDb.get(db);
  if (waits === undefined) {
    waits = { waiters: new Set(), closed: false };
    byDb.set(db, waits);
  }
  return waits;
}

/** Something may be claimable now: every waiting claim of this process looks again. */
export function announceClaimable(db: Db): void {
  const waits = byDb.get(db);
  if (waits === undefined) return;
  for (const wake of [...waits.waiters]) wake();
}

/** The server is closing: waiting claims answer now (empty), and no new one waits. */
export function endClaimWaits(db: Db): void {
  const waits = waitsOf(db);
  waits.closed = true;
  announceClaimable(db);
}

/**
 * Claims with `claim` until it returns something, `waitMs` has passed, the caller went away
 * (`abort`) or the server closes; the last claim's answer (empty when nothing came).
 */
export async function claimWaiting<T>(
  db: Db,
  waitMs: number,
  abort: AbortSignal | undefined,
  claim: () => Promise<T[]>,
): Promise<T[]> {
  let items = await claim();
  const waits = waitsOf(db);
  const deadline = performance.now() + waitMs;
  while (items.length === 0 && !waits.closed && !abort?.aborted) {
    const left = deadline - performance.now();
    if (left <= 0) break;
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        waits.waiters.delete(wake);
        abort?.removeEventListener("abort", wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.min(left, RECHECK_MS));
      waits.waiters.add(wake);
      abort?.addEventListener("abort", wake, { once: true });
    });
    // A caller that went away gets no tasks: a claim made now would be held by nobody until it lapses.
    if (waits.closed || abort?.aborted) break;
    items = await claim();
  }
  return items;
}
