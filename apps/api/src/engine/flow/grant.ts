import { sql } from "drizzle-orm";
import type { Clock } from "../../clock.js";
import { type Db, inTransaction, rowsOf } from "../../storage/db.js";
import { sqlIntArray, sqlTextArray } from "../../storage/sql-arrays.js";
import { LIVE_STATUSES } from "../statuses.js";
import { lockInIdOrder } from "../trees/lock.js";
import { FLOW_LOCK_CLASS } from "./gate.js";

// The grant pass (docs/flow-control.md "The grant pass"): ONE transaction under the exclusive
// flow lock, so two replicas' passes never grant the same free slot. It forgets slots and
// waits whose instance left the visit, then grants, fairly across keys, what is free: the
// first wait of every key before any key's second, keys in the order they were last served
// (least recently first, flow_keys.served_at), so a key with 10,000 waiting takes one turn per
// round like a key with one, across passes too; at most `maxGrants` in all. A grant wakes its
// instance (wake_at = now) and inserts its slot in the same transaction.

/** flow_keys rows not served for this long are pruned: a day, the longest rate period. */
const KEY_KEPT_MS = 86_400_000;

const LIVE = sql.raw(LIVE_STATUSES.map((s) => `'${s}'`).join(", "));

export interface PassResult {
  granted: number;
  /** Grants by reason, for the metrics. */
  byReason: { concurrency: number; rate_limit: number };
  /** When a rate-limited key gets its next permit while waits remain (the next pass is due then); null when none. */
  nextRateAt: number | null;
  /** The pass stopped at maxGrants with more grantable: run another at once. */
  full: boolean;
}

interface Candidate {
  scope: string;
  key: string;
  instance_id: string;
  reason: string;
  task_epoch: number;
  attempt: number;
  lim: number;
  per_ms: number;
  rn: number;
}

/** Whether any wait is queued: the pass's first statement, so a fleet without flow control pays one read. */
export async function anyFlowWaits(db: Db): Promise<boolean> {
  return rowsOf(await db.execute(sql`SELECT 1 FROM flow_waits LIMIT 1`)).length > 0;
}

export async function grantPass(db: Db, clock: Clock, maxGrants: number): Promise<PassResult> {
  return inTransaction(db, async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${FLOW_LOCK_CLASS}, 0)`);
    const now = clock.now();
    // A slot is held while its instance is live and on the visit (and attempt) it was granted for.
    await tx.execute(sql`
      DELETE FROM flow_slots s WHERE NOT EXISTS (
        SELECT 1 FROM instances i WHERE i.id = s.instance_id AND i.status IN (${LIVE})
          AND (s.task_epoch = -1 OR i.task_epoch = s.task_epoch) AND (s.attempt = -1 OR i.retry_count = s.attempt))`);
    await tx.execute(sql`
      DELETE FROM flow_waits w WHERE NOT EXISTS (
        SELECT 1 FROM instances i WHERE i.id = w.instance_id AND i.status IN (${LIVE})
          AND i.task_epoch = w.task_epoch AND i.retry_count = w.attempt)`);
    await tx.execute(sql`DELETE FROM flow_keys WHERE served_at < ${now - KEY_KEPT_MS}`);
    // Waits of running (not paused) instances, ranked within their key; concurrency keys
    // bounded by their free slots here, rate keys by their permits below.
    const ranked = rowsOf<Candidate>(
      await tx.execute(sql`
        WITH held AS (SELECT scope, key, count(*)::int AS n FROM flow_slots GROUP BY scope, key),
        ranked AS (
          SELECT w.scope, w.key, w.instance_id, w.reason, w.task_epoch, w.attempt, w.lim, w.per_ms, w.priority, w.since,
                 row_number() OVER (PARTITION BY w.scope, w.key ORDER BY w.priority DESC, w.since, w.instance_id)::int AS rn
          FROM flow_waits w JOIN instances i ON i.id = w.instance_id AND i.status = 'running')
        SELECT r.scope, r.key, r.instance_id, r.reason, r.task_epoch, r.attempt, r.lim, r.per_ms::float8 AS per_ms, r.rn
        FROM ranked r LEFT JOIN held h ON h.scope = r.scope AND h.key = r.key
          LEFT JOIN flow_keys k ON k.scope = r.scope AND k.key = r.key
        WHERE r.rn <= r.lim - CASE WHEN r.reason = 'concurrency' THEN COALESCE(h.n, 0) ELSE 0 END
        ORDER BY r.rn, COALESCE(k.served_at, 0), r.priority DESC, r.since, r.instance_id
        LIMIT ${maxGrants + 1}`),
    ).map((c) => ({
      ...c,
      task_epoch: Number(c.task_epoch),
      attempt: Number(c.attempt),
      lim: Number(c.lim),
      per_ms: Number(c.per_ms),
      rn: Number(c.rn),
    }));
    const full = ranked.length > maxGrants;
    const { grants, rates, nextRateAt } = await applyRates(tx, ranked.slice(0, maxGrants), now);
    const byReason = { concurrency: 0, rate_limit: 0 };
    if (grants.length === 0) return { granted: 0, byReason, nextRateAt, full: false };
    const ids = grants.map((g) => g.instance_id);
    const woken = rowsOf<{ id: string }>(
      await tx.execute(sql`
        WITH locked AS (${lockInIdOrder(ids)}),
        g AS (SELECT unnest(${sqlTextArray(ids)}) AS id, unnest(${sqlIntArray(grants.map((g) => g.task_epoch))}) AS epoch)
        UPDATE instances AS i SET wake_at = ${now}
        FROM g, locked
        WHERE i.id = g.id AND locked.id = g.id AND i.status = 'running' AND i.task_epoch = g.epoch AND i.lease_owner IS NULL
        RETURNING i.id`),
    );
    const landed = new Set(woken.map((r) => r.id));
    const done = grants.filter((g) => landed.has(g.instance_id));
    if (done.length === 0) return { granted: 0, byReason, nextRateAt, full };
    await tx.execute(sql`
      INSERT INTO flow_slots (scope, key, instance_id, task_epoch, attempt, granted_at)
      SELECT * FROM unnest(${sqlTextArray(done.map((g) => g.scope))}::text[], ${sqlTextArray(done.map((g) => g.key))}::text[],
        ${sqlTextArray(done.map((g) => g.instance_id))}::text[], ${sqlIntArray(done.map((g) => (g.scope.startsWith("process:") ? -1 : g.task_epoch)))}::int[],
        ${sqlIntArray(done.map((g) => (g.reason === "rate_limit" ? g.attempt : -1)))}::int[]),
        (SELECT ${now}::bigint) AS t
      ON CONFLICT (scope, instance_id) DO UPDATE SET key = EXCLUDED.key, task_epoch = EXCLUDED.task_epoch,
        attempt = EXCLUDED.attempt, granted_at = EXCLUDED.granted_at`);
    await tx.execute(sql`
      DELETE FROM flow_waits w USING (SELECT unnest(${sqlTextArray(done.map((g) => g.scope))}::text[]) AS scope,
        unnest(${sqlTextArray(done.map((g) => g.instance_id))}::text[]) AS id) d
      WHERE w.scope = d.scope AND w.instance_id = d.id`);
    // Served now (round-robin order of the next passes); a rate key's permits count from their
    // grant: only those that woke their instance.
    const served = new Map<string, { scope: string; key: string; starts: string }>();
    for (const g of done) {
      const at = `${g.scope}\u0000${g.key}`;
      if (served.has(at)) continue;
      const rate = rates.get(at);
      const used =
        rate === undefined
          ? 0
          : done.filter((x) => x.reason === "rate_limit" && `${x.scope}\u0000${x.key}` === at).length;
      const starts = rate === undefined ? [] : [...rate.kept, ...Array.from({ length: used }, () => now)];
      served.set(at, { scope: g.scope, key: g.key, starts: starts.join(",") });
    }
    const keys = [...served.values()];
    await tx.execute(sql`
      INSERT INTO flow_keys (scope, key, served_at, starts)
      SELECT scope, key, ${now}::bigint, starts FROM unnest(${sqlTextArray(keys.map((k) => k.scope))}::text[],
        ${sqlTextArray(keys.map((k) => k.key))}::text[], ${sqlTextArray(keys.map((k) => k.starts))}::text[]) AS k(scope, key, starts)
      ON CONFLICT (scope, key) DO UPDATE SET served_at = EXCLUDED.served_at, starts = EXCLUDED.starts`);
    for (const g of done) byReason[g.reason === "rate_limit" ? "rate_limit" : "concurrency"]++;
    return { granted: done.length, byReason, nextRateAt, full };
  });
}

interface RateState {
  scope: string;
  key: string;
  /** Starts still inside the period, oldest first. */
  kept: number[];
}

/**
 * Keeps the concurrency candidates and, per rate key, as many of its candidates (in rank
 * order) as the key has permits left in the sliding period: a key may start `lim` times in
 * any `per_ms` window. Also answers when the next permit of a key with waits left frees.
 */
async function applyRates(
  tx: Db,
  candidates: Candidate[],
  now: number,
): Promise<{ grants: Candidate[]; rates: Map<string, RateState>; nextRateAt: number | null }> {
  const rateKeys = [
    ...new Map(
      candidates.filter((c) => c.reason === "rate_limit").map((c) => [`${c.scope}\u0000${c.key}`, c]),
    ).values(),
  ];
  const rates = new Map<string, RateState>();
  if (rateKeys.length === 0) return { grants: candidates, rates, nextRateAt: null };
  const stored = rowsOf<{ scope: string; key: string; starts: string }>(
    await tx.execute(sql`
      SELECT r.scope, r.key, r.starts FROM flow_keys r
      JOIN (SELECT unnest(${sqlTextArray(rateKeys.map((c) => c.scope))}::text[]) AS scope,
                   unnest(${sqlTextArray(rateKeys.map((c) => c.key))}::text[]) AS key) k ON k.scope = r.scope AND k.key = r.key
      FOR UPDATE OF r`),
  );
  const byKey = new Map(stored.map((r) => [`${r.scope}\u0000${r.key}`, r.starts]));
  let nextRateAt: number | null = null;
  const left = new Map<string, number>();
  for (const c of rateKeys) {
    const at = `${c.scope}\u0000${c.key}`;
    const text = byKey.get(at) ?? "";
    const kept = (text === "" ? [] : text.split(",").map(Number)).filter((t) => t > now - c.per_ms);
    rates.set(at, { scope: c.scope, key: c.key, kept });
    const free = Math.max(0, c.lim - kept.length);
    left.set(at, free);
    // Candidates are at most `lim` per key: as many as are free may mean more wait behind them.
    // The next permit frees when the oldest start of the period (after these grants) leaves it.
    const waiting = candidates.filter(
      (x) => x.reason === "rate_limit" && x.scope === c.scope && x.key === c.key,
    ).length;
    if (waiting >= free) {
      const next = (kept.length > 0 ? kept[0] : now) + c.per_ms;
      nextRateAt = nextRateAt === null ? next : Math.min(nextRateAt, next);
    }
  }
  const grants = candidates.filter((c) => {
    if (c.reason !== "rate_limit") return true;
    const at = `${c.scope}\u0000${c.key}`;
    const free = left.get(at) ?? 0;
    if (free <= 0) return false;
    left.set(at, free - 1);
    return true;
  });
  return { grants, rates, nextRateAt };
}
