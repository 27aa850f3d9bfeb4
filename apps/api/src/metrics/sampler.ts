import { sql } from "drizzle-orm";
import type { Logger } from "@baton/log";
import type { Clock } from "../clock.js";
import { type Db, rowsOf } from "../storage/db.js";
import { LIVE_STATUSES } from "../engine/statuses.js";
import type { Metrics } from "./metrics.js";
import { errorText } from "../loggable-error.js";

/** How often each replica samples the database for the instance and external-task gauges. */
export const SAMPLE_EVERY_MS = 5_000;

/**
 * One statement on a timer, never per scrape (docs/metrics.md): live instances by status and
 * phase (from the instance counters, docs/api.md "Counts": a cost of the groups, where a scan of
 * the live rows took 264 ms at 71,000 of them), the due queue and its oldest entry, expired
 * leases nobody reclaimed (a leased row's wake_at is its lease expiry, pump/claim.ts, so the
 * claim's index finds them: filtering every running row for lease_owner took 732 ms), and the
 * external-task queue (its table holds only current parks), and the flow-control waits per reason
 * (docs/flow-control.md: their row `phase` carries the number of keys with waits and `oldest` the
 * longest queue on one key; never a key itself, which may be a customer). Every replica samples the same
 * database, so dashboards take max() over replicas, not sum().
 */
export async function sampleOnce(db: Db, clock: Clock, metrics: Metrics): Promise<void> {
  const now = clock.now();
  const live = sql.join(
    LIVE_STATUSES.map((s) => sql`${s}`),
    sql`, `,
  );
  const rows = rowsOf<{ k: string; status: string | null; phase: string | null; n: unknown; oldest: unknown }>(
    await db.execute(sql`
      SELECT 'i' AS k, status, COALESCE(NULLIF(phase, ''), 'none') AS phase, sum(n) AS n, NULL::bigint AS oldest
        FROM (SELECT status, phase, n FROM instance_counts
              UNION ALL SELECT status, phase, n FROM instance_count_deltas) c
        WHERE status IN (${live}) GROUP BY 2, 3 HAVING sum(n) <> 0
      UNION ALL
      SELECT 'due', NULL, NULL, count(*), min(wake_at) FROM instances
        WHERE status = 'running' AND wake_at IS NOT NULL AND wake_at <= ${now}
          AND (lease_expires_at IS NULL OR lease_expires_at <= ${now})
      UNION ALL
      SELECT 'expired', NULL, NULL, count(*), NULL FROM instances
        WHERE status = 'running' AND lease_owner IS NOT NULL AND lease_expires_at <= ${now}
          AND wake_at IS NOT NULL AND wake_at <= ${now}
      UNION ALL
      SELECT 'waiting', NULL, NULL, count(*), min(waiting_since) FROM external_waits
        WHERE claimed_by IS NULL OR claim_expires_at IS NULL OR claim_expires_at <= ${now}
      UNION ALL
      SELECT 'claimed', NULL, NULL, count(*), NULL FROM external_waits
        WHERE claimed_by IS NOT NULL AND claim_expires_at > ${now}
      UNION ALL
      SELECT 'flow', reason, count(*)::text, sum(n), max(n) FROM
        (SELECT reason, count(*) AS n FROM flow_waits GROUP BY reason, scope, key) f GROUP BY reason`),
  );
  const one = (k: string) => rows.find((r) => r.k === k);
  const ageSeconds = (oldest: unknown) =>
    oldest === null || oldest === undefined ? 0 : Math.max(0, (now - Number(oldest)) / 1000);
  metrics.sampled(
    {
      instances: rows
        .filter((r) => r.k === "i")
        .map((r) => ({ status: String(r.status), phase: String(r.phase ?? ""), count: Number(r.n) })),
      due: Number(one("due")?.n ?? 0),
      oldestDueAgeSeconds: ageSeconds(one("due")?.oldest),
      expiredLeases: Number(one("expired")?.n ?? 0),
      externalWaiting: Number(one("waiting")?.n ?? 0),
      externalClaimed: Number(one("claimed")?.n ?? 0),
      oldestExternalWaitingSeconds: ageSeconds(one("waiting")?.oldest),
      flowWaits: rows
        .filter((r) => r.k === "flow")
        .map((r) => ({
          reason: String(r.status),
          waiting: Number(r.n),
          keys: Number(r.phase),
          longest: Number(r.oldest),
        })),
    },
    now,
  );
}

/** Samples now and then every `everyMs`; a failure is logged and the last figures stay. Returns stop(). */
export function startSampler(db: Db, clock: Clock, metrics: Metrics, log: Logger, everyMs = SAMPLE_EVERY_MS) {
  let running: Promise<void> | undefined;
  const sample = () => {
    running ??= sampleOnce(db, clock, metrics)
      .catch((error) => log.warn("sampling metrics failed", { error: errorText(error) }))
      .finally(() => (running = undefined));
  };
  sample();
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
