// One delivery pass (docs/events.md "Delivery"): claim the due heads of the subscriptions'
// queues under a lease, send each signed, write every outcome fenced by the epoch it claimed.
import { parseJson, stringifyJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import type { Clock } from "../../clock.js";
import type { ServerConfig } from "../../config.js";
import { iso, truncate } from "../../format.js";
import type { EngineMetrics } from "../../metrics/metrics.js";
import { type Db, rowsOf } from "../../storage/db.js";
import { resolveRefs } from "../../storage/objects.js";
import { storableJson } from "../../storage/text.js";
import { serverSecrets } from "../../views/secrets-lookup.js";
import { checkFetchTarget, type FetchPolicy, type Resolver } from "../fetch/host-policy.js";
import { httpCall } from "../fetch/http-call.js";
import { tracing } from "../../tracing/index.js";
import { deliverySpan } from "./delivery-span.js";
import { TaskFailure } from "../advance/task-failure.js";
import { redactJsonText, redactText } from "../secrets.js";
import { signedHeaders } from "./signing.js";

/** Time a claimed delivery is held beyond its call's timeout: the margin for the claim and the write. */
const LEASE_MARGIN_MS = 10_000;
/** The first retry waits this long; each later one twice the one before, up to --limit-delivery-backoff. */
const FIRST_RETRY_MS = 1_000;
/** Characters of a receiver's answer (or an error) kept as a delivery's last error. */
const ERROR_CHARS = 300;

export interface DeliveryDeps {
  db: Db;
  clock: Clock;
  config: ServerConfig;
  workerId: string;
  policy: FetchPolicy;
  metrics: Pick<EngineMetrics, "eventDelivered">;
  env: NodeJS.ProcessEnv;
  /** The system resolver unless a test gives another. */
  resolve?: Resolver;
}

interface Claimed {
  id: number;
  subscription: string;
  lease_epoch: number;
  attempts: number;
  event_seq: number;
  type: string;
  data: string;
  event_at: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  /** While tracing: the event's instance's trace_parent and root (docs/tracing.md "Spans"). */
  trace_parent?: string | null;
  trace_root?: string | null;
}

interface Outcome {
  id: number;
  epoch: number;
  ok: boolean;
  code: number | null;
  error: string | null;
  latency: number | null;
  next_at: number;
}

/** The lease a claim takes: long enough for one call at the configured timeout plus the margin. */
export function deliveryLeaseMs(config: ServerConfig): number {
  return config.limits.deliveryTimeoutMs + LEASE_MARGIN_MS;
}

/** The wait before the attempt after `attempts` failed ones: 1 s, 2 s, 4 s, … at most the flag. */
export function retryDelayMs(attempts: number, maxMs: number): number {
  return Math.min(maxMs, FIRST_RETRY_MS * 2 ** Math.min(30, Math.max(0, attempts - 1)));
}

/**
 * Claims up to `limit` deliveries that are due: pending, `next_at` come, no live lease, their
 * subscription not suspended, and the oldest pending one of their (subscription, order_key) —
 * so the events of one instance go out one at a time, in order. `FOR UPDATE SKIP LOCKED` on the
 * LIMITed pick: a delivery another replica is claiming is skipped, never waited on, and the
 * claim moves `lease_epoch`, the fence of the write that records the attempt.
 */
async function claimDue(db: Db, workerId: string, now: number, leaseMs: number, limit: number): Promise<Claimed[]> {
  // The instance an event is about, read only while tracing: its delivery's span joins its trace.
  const traced =
    tracing() === undefined
      ? sql``
      : sql`, (SELECT i.trace_parent FROM instances i WHERE i.id = (ev.data::jsonb)->>'instance_id') AS trace_parent,
              (SELECT i.root_id FROM instances i WHERE i.id = (ev.data::jsonb)->>'instance_id') AS trace_root`;
  const result = await db.execute(sql`
    WITH picked AS (
      SELECT d.id FROM event_deliveries d
      JOIN subscriptions s ON s.name = d.subscription
      WHERE d.status = 'pending' AND d.next_at <= ${now}
        AND (d.lease_until IS NULL OR d.lease_until <= ${now})
        AND s.suspended_at IS NULL
        AND NOT EXISTS (
          SELECT 1 FROM event_deliveries e
          WHERE e.subscription = d.subscription AND e.order_key = d.order_key AND e.status = 'pending'
            AND (e.event_seq, e.id) < (d.event_seq, d.id))
      ORDER BY d.next_at, d.id
      LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE event_deliveries AS d
    SET lease_owner = ${workerId}, lease_until = ${now + leaseMs}, lease_epoch = d.lease_epoch + 1
    FROM picked, events ev, subscriptions s
    WHERE d.id = picked.id AND ev.seq = d.event_seq AND s.name = d.subscription
    RETURNING d.id, d.subscription, d.lease_epoch, d.attempts, d.event_seq, ev.type, ev.data, ev.created_at AS event_at,
              s.url, s.secret, s.previous_secret, s.previous_secret_until ${traced}`);
  return rowsOf<Claimed>(result).map((r) => ({
    ...r,
    id: Number(r.id),
    event_seq: Number(r.event_seq),
    event_at: Number(r.event_at),
    previous_secret_until: r.previous_secret_until === null ? null : Number(r.previous_secret_until),
  }));
}

/** The webhook-id of an event: the same for every attempt and every subscription (receivers de-duplicate on it). */
export function eventId(seq: number): string {
  return `evt_${seq}`;
}

/** The body of an event as sent: `{type, timestamp, data}`, values stored as objects spliced in, secrets redacted. */
export async function eventBody(
  db: Db,
  secrets: readonly string[],
  event: { type: string; data: string; at: number },
): Promise<string> {
  const data = await resolveRefs(db, parseJson(event.data));
  return redactJsonText(stringifyJson({ type: event.type, timestamp: iso(event.at), data }), secrets);
}

/** One pass; answers how many deliveries it claimed (a full pass means more may be due). */
export async function deliveryPass(deps: DeliveryDeps): Promise<number> {
  const { db, clock, config, workerId } = deps;
  const leaseMs = deliveryLeaseMs(config);
  // Taken before the claim is sent: the lease in this holder's view never outlasts the row's.
  const sentAt = clock.now();
  const claimed = await claimDue(db, workerId, sentAt, leaseMs, config.limits.deliveriesPerPass);
  if (claimed.length === 0) return 0;
  // Read once per pass (serverSecrets counts the definitions on every call).
  const secrets = await serverSecrets(db, deps.env);
  const outcomes = await Promise.all(claimed.map((c) => attempt(deps, secrets, c, sentAt + leaseMs)));
  await recordOutcomes(
    db,
    clock.now(),
    config,
    outcomes.filter((o) => o !== undefined),
  );
  for (const [i, o] of outcomes.entries()) {
    if (o === undefined) continue;
    const c = claimed[i];
    const outcome = o.ok ? "delivered" : c.attempts + 1 >= config.limits.deliveryAttempts ? "failed" : "retry";
    deps.metrics.eventDelivered(
      c.subscription,
      outcome,
      o.ok ? Math.max(0, clock.now() - c.event_at) / 1000 : undefined,
    );
  }
  return claimed.length;
}

/**
 * One attempt of one claimed delivery; undefined when too little of the lease is left to make
 * the call and still record it (the lease lapses and the next claim, any replica's, retries it).
 */
async function attempt(
  deps: DeliveryDeps,
  redacted: readonly string[],
  c: Claimed,
  leaseUntil: number,
): Promise<Outcome | undefined> {
  const { clock, config } = deps;
  const timeoutMs = config.limits.deliveryTimeoutMs;
  const fail = (error: string, code: number | null, latency: number | null): Outcome => ({
    id: c.id,
    epoch: c.lease_epoch,
    ok: false,
    code,
    error: truncate(error, ERROR_CHARS),
    latency,
    next_at: clock.now() + retryDelayMs(c.attempts + 1, config.limits.deliveryBackoffMs),
  });
  let url: URL;
  try {
    url = new URL(c.url);
  } catch {
    return fail(`the subscription's URL does not parse`, null, null);
  }
  const target = await checkFetchTarget(url.hostname, deps.policy, deps.resolve);
  if (!target.ok) return fail(`refused: ${target.reason}`, null, null);
  const now = clock.now();
  // Never send with less lease left than the call may take: another replica could claim it meanwhile.
  if (leaseUntil - now < timeoutMs + LEASE_MARGIN_MS / 2) return undefined;
  const body = await eventBody(deps.db, redacted, { type: c.type, data: c.data, at: c.event_at });
  const secrets = [c.secret];
  if (c.previous_secret !== null && c.previous_secret_until !== null && c.previous_secret_until > now)
    secrets.push(c.previous_secret);
  const began = performance.now();
  const latency = () => Math.round(performance.now() - began);
  const span = deliverySpan(c, url);
  try {
    const response = await httpCall({
      method: "POST",
      url,
      headers: {
        "content-type": "application/json",
        "user-agent": "baton-webhooks",
        // Real time, not the service clock: the receiver checks it against its own clock.
        ...signedHeaders(secrets, eventId(c.event_seq), Math.floor(Date.now() / 1000), body),
        ...(span === undefined ? {} : { traceparent: tracing()!.traceparentOf(span) }),
      },
      body,
      timeoutMs,
      maxResponseBytes: config.limits.deliveryResponseBytes,
      address: { address: target.address, family: target.family },
    });
    span?.setAttribute("http.response.status_code", response.status);
    if (span !== undefined && (response.status < 200 || response.status > 299))
      tracing()?.fail(span, String(response.status));
    if (response.status >= 200 && response.status < 300)
      return {
        id: c.id,
        epoch: c.lease_epoch,
        ok: true,
        code: response.status,
        error: null,
        latency: latency(),
        next_at: now,
      };
    const text = redactText(response.body.toString("utf8"), redacted);
    return fail(`HTTP ${response.status}${text === "" ? "" : `: ${text}`}`, response.status, latency());
  } catch (error) {
    if (span !== undefined) tracing()?.fail(span, error instanceof TaskFailure ? error.code : "error");
    return fail((error as Error).message, null, latency());
  } finally {
    span?.end();
  }
}

/**
 * Every outcome of a pass in ONE statement, each fenced by the lease epoch it claimed (a
 * stale holder's result is dropped): a success delivers, a failure waits for its retry or,
 * past --limit-delivery-attempts, parks as failed. A subscription's deliveries parked in a row
 * (reset by any success) reaching --limit-subscription-failures suspend it.
 */
async function recordOutcomes(db: Db, now: number, config: ServerConfig, outcomes: Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await db.execute(sql`
    WITH x AS (
      SELECT * FROM jsonb_to_recordset(${storableJson(outcomes)}::jsonb)
        AS x(id bigint, epoch integer, ok boolean, code integer, error text, latency integer, next_at bigint)
    ),
    upd AS (
      UPDATE event_deliveries AS d
      SET attempts = d.attempts + 1,
          status = CASE WHEN x.ok THEN 'delivered'
                        WHEN d.attempts + 1 >= ${config.limits.deliveryAttempts} THEN 'failed' ELSE 'pending' END,
          next_at = CASE WHEN x.ok THEN d.next_at ELSE x.next_at END,
          lease_owner = NULL, lease_until = NULL,
          last_status = x.code, last_error = x.error, latency_ms = x.latency,
          delivered_at = CASE WHEN x.ok THEN ${now}::bigint END
      FROM x
      WHERE d.id = x.id AND d.lease_epoch = x.epoch AND d.status = 'pending'
      RETURNING d.subscription, d.status
    ),
    tally AS (
      SELECT subscription, bool_or(status = 'delivered') AS delivered, count(*) FILTER (WHERE status = 'failed')::int AS parked
      FROM upd GROUP BY subscription
    )
    UPDATE subscriptions AS s
    SET failures_in_row = CASE WHEN t.delivered THEN t.parked ELSE s.failures_in_row + t.parked END,
        suspended_at = CASE
          WHEN s.suspended_at IS NULL
           AND (CASE WHEN t.delivered THEN t.parked ELSE s.failures_in_row + t.parked END) >= ${config.limits.subscriptionFailures}
          THEN ${now}::bigint ELSE s.suspended_at END,
        suspended_reason = CASE
          WHEN s.suspended_at IS NULL
           AND (CASE WHEN t.delivered THEN t.parked ELSE s.failures_in_row + t.parked END) >= ${config.limits.subscriptionFailures}
          THEN ${`deliveries parked as failed ${config.limits.subscriptionFailures} times in a row (--limit-subscription-failures); resume it once the receiver answers`}
          ELSE s.suspended_reason END
    FROM tally t
    WHERE s.name = t.subscription AND (t.parked > 0 OR (t.delivered AND s.failures_in_row <> 0))`);
}
