import { sql } from "drizzle-orm";
import type { Clock } from "../../clock.js";
import { type Db, executePrepared, rowsOf } from "../../storage/db.js";

// The claim long-poll (docs/engine.md "Claim long-poll", the `wait_ms` extension of claim): an
// empty claim waits here until something a claim of its filter could take is claimable, then
// claims again. Whether anything is claimable is looked up by ONE query per process for all the
// waiting claims (`Claimable`), when this process lands something a claim could take (an
// external task parked by its engine, commit.ts; a claim released, claims.ts) and every
// RECHECK_MS (parks by other replicas, claims that lapse). It wakes only waiting claims whose
// filter matches a claimable task, oldest waiting first, no more than those tasks can feed.
// A waiting claim never runs a claim statement on its own timer: idle long-polls must cost one
// check per RECHECK_MS however many there are, not one statement each.

/** How often the waiting claims' check looks again without being woken. */
export const RECHECK_MS = 1_000;

/** Which tasks a claim takes: its filter and how many at most. */
export interface ClaimFilter {
  process?: string;
  task?: string;
  version?: number;
  /** A scoped worker's processes (docs/auth.md "Scopes"); absent or null: every process. */
  processes?: readonly string[] | null;
  limit: number;
}

/** Tasks claimable now, by (process, task, version), from the oldest `sample` of them. */
export interface ClaimableTasks {
  groups: Array<{ process: string; task: string; version: number; count: number }>;
  /** The sample was full: more tasks may be claimable than `groups` counts. */
  more: boolean;
}

export type Claimable = () => Promise<ClaimableTasks>;

/** How many of the oldest claimable tasks the long-poll's check looks at. */
export const CLAIMABLE_SAMPLE = 1_000;

/**
 * What a claim could take now, by (process, task, version), from the oldest CLAIMABLE_SAMPLE
 * claimable tasks: the one lookup the waiting claims of this server share. The same conditions
 * and index walk as claimExternalTasks (claims.ts), reading instead of taking.
 */
export async function claimableTasks(db: Db, clock: Clock): Promise<ClaimableTasks> {
  const now = clock.now();
  const rows = rowsOf<{ process: string; task: string; version: number; count: number }>(
    await executePrepared(
      db,
      sql`
      SELECT s.process, s.task, s.version, count(*)::int AS count FROM (
        SELECT w.task, i.process, i.version FROM external_waits w
        CROSS JOIN LATERAL (
          SELECT i.process, i.version FROM instances i
          WHERE i.id = w.instance_id AND i.status = 'running' AND i.phase = 'external'
            AND i.task_epoch = w.task_epoch AND i.task = w.task
        ) i
        WHERE (w.claim_expires_at IS NULL OR w.claim_expires_at <= ${now})
        ORDER BY w.waiting_since, w.instance_id
        LIMIT ${CLAIMABLE_SAMPLE}
      ) s
      GROUP BY s.process, s.task, s.version`,
    ),
  );
  const groups = rows.map((r) => ({
    process: String(r.process),
    task: String(r.task),
    version: Number(r.version),
    count: Number(r.count),
  }));
  return { groups, more: groups.reduce((n, g) => n + g.count, 0) >= CLAIMABLE_SAMPLE };
}

interface Waiter {
  filter: ClaimFilter;
  wake: () => void;
}

interface Waits {
  /** In the order the claims began waiting (a Set keeps insertion order). */
  waiters: Set<Waiter>;
  closed: boolean;
  /** The lookup of the claims waiting now (they all come from one server: one database, one clock). */
  claimable?: Claimable;
  checking: boolean;
  /** Something was announced while a check ran: check again when it ends. */
  again: boolean;
  timer?: NodeJS.Timeout;
}

const byDb = new WeakMap<Db, Waits>();

function waitsOf(db: Db): Waits {
  let waits = byDb.get(db);
  if (waits === undefined) {
    waits = { waiters: new Set(), closed: false, checking: false, again: false };
    byDb.set(db, waits);
  }
  return waits;
}

const matches = (filter: ClaimFilter, group: ClaimableTasks["groups"][number]) =>
  (filter.process === undefined || filter.process === group.process) &&
  (filter.processes === undefined || filter.processes === null || filter.processes.includes(group.process)) &&
  (filter.task === undefined || filter.task === group.task) &&
  (filter.version === undefined || filter.version === group.version);

/** Wakes the waiting claims `found` can feed: oldest first, each counted for its whole `limit`. */
function wakeFor(waits: Waits, found: ClaimableTasks): void {
  const left = found.groups.map((g) => ({ ...g }));
  for (const waiter of [...waits.waiters]) {
    if (found.more) {
      waiter.wake();
      continue;
    }
    let want = waiter.filter.limit;
    let fed = false;
    for (const group of left) {
      if (want === 0) break;
      if (group.count === 0 || !matches(waiter.filter, group)) continue;
      const take = Math.min(want, group.count);
      group.count -= take;
      want -= take;
      fed = true;
    }
    if (fed) waiter.wake();
  }
}

/** Looks up what is claimable once for all waiting claims, and wakes those it can feed. */
async function check(waits: Waits): Promise<void> {
  if (waits.checking) {
    waits.again = true;
    return;
  }
  waits.checking = true;
  try {
    do {
      waits.again = false;
      if (waits.waiters.size === 0 || waits.claimable === undefined) break;
      let found: ClaimableTasks;
      try {
        found = await waits.claimable();
      } catch {
        // The lookup failed (the database is unreachable): every waiting claim claims itself,
        // and its claim answers the failure as any claim would.
        found = { groups: [], more: true };
      }
      wakeFor(waits, found);
    } while (waits.again);
  } finally {
    waits.checking = false;
  }
}

function stopTimerIfIdle(waits: Waits): void {
  if (waits.waiters.size > 0 || waits.timer === undefined) return;
  clearInterval(waits.timer);
  waits.timer = undefined;
}

/** Something may be claimable now: the waiting claims of this process look once, together. */
export function announceClaimable(db: Db): void {
  const waits = byDb.get(db);
  if (waits === undefined || waits.waiters.size === 0) return;
  void check(waits);
}

/** The server is closing: waiting claims answer now (empty), and no new one waits. */
export function endClaimWaits(db: Db): void {
  const waits = waitsOf(db);
  waits.closed = true;
  for (const waiter of [...waits.waiters]) waiter.wake();
}

/**
 * Claims with `claim` until it returns something, `waitMs` has passed, the caller went away
 * (`abort`) or the server closes; the last claim's answer (empty when nothing came). While it
 * waits, `claimable` (shared by every waiting claim of this server) says when to claim again.
 */
export async function claimWaiting<T>(
  db: Db,
  waitMs: number,
  abort: AbortSignal | undefined,
  claim: () => Promise<T[]>,
  filter: ClaimFilter,
  claimable: Claimable,
): Promise<T[]> {
  let items = await claim();
  const waits = waitsOf(db);
  const deadline = performance.now() + waitMs;
  while (items.length === 0 && !waits.closed && !abort?.aborted) {
    const left = deadline - performance.now();
    if (left <= 0) break;
    const woken = await new Promise<"checked" | "deadline">((resolve) => {
      const end = (why: "checked" | "deadline") => {
        clearTimeout(timer);
        waits.waiters.delete(waiter);
        abort?.removeEventListener("abort", waiter.wake);
        stopTimerIfIdle(waits);
        resolve(why);
      };
      const waiter: Waiter = { filter, wake: () => end("checked") };
      // At the deadline the claim looks one last time, as it did on every recheck before.
      const timer = setTimeout(() => end("deadline"), left);
      waits.waiters.add(waiter);
      waits.claimable = claimable;
      waits.timer ??= setInterval(() => void check(waits), RECHECK_MS).unref();
      abort?.addEventListener("abort", waiter.wake, { once: true });
    });
    // A caller that went away gets no tasks: a claim made now would be held by nobody until it lapses.
    if (waits.closed || abort?.aborted) break;
    items = await claim();
    // Node's timers may fire a millisecond before performance.now() reaches the deadline.
    if (woken === "deadline") break;
  }
  return items;
}
