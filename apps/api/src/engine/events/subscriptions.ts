// The subscription resource's verbs (docs/events.md "Subscriptions"): create or replace,
// delete, rotate the secret, resume, redeliver. Each is one transaction.
import type { Subscription, SubscriptionBody } from "@baton/actions";
import { sql } from "drizzle-orm";
import type { Clock } from "../../clock.js";
import type { ServerConfig } from "../../config.js";
import { isoOrNull, iso } from "../../format.js";
import { flagOf } from "../../limits.js";
import { conflict, invalid, notFound } from "../../refusal.js";
import { type Db, inTransaction, rowsOf } from "../../storage/db.js";
import { issueSecret, secretBytes } from "./signing.js";

export interface SubscriptionDeps {
  db: Db;
  clock: Clock;
  config: ServerConfig;
}

/** A rotation's default overlap: the previous secret signs for one more day. */
export const DEFAULT_OVERLAP_MS = 86_400_000;

export interface SubscriptionRow {
  name: string;
  url: string;
  events: string[];
  process: string | null;
  channel: string | null;
  previous_secret_until: number | string | null;
  failures_in_row: number;
  suspended_at: number | string | null;
  suspended_reason: string | null;
  actor: string | null;
  created_at: number | string;
  updated_at: number | string;
  pending: number | string;
}

/** The columns a view reads: never `secret` nor `previous_secret`. */
const VIEW_COLUMNS = sql`s.name, s.url, s.events, s.process, s.channel, s.previous_secret_until, s.failures_in_row,
  s.suspended_at, s.suspended_reason, s.actor, s.created_at, s.updated_at,
  (SELECT count(*) FROM event_deliveries d WHERE d.subscription = s.name AND d.status = 'pending')::int AS pending`;

/** The view of a subscription row (no secret in it, ever). */
export function subscriptionView(row: SubscriptionRow): Subscription {
  const num = (v: number | string | null) => (v === null ? null : Number(v));
  return {
    name: row.name,
    url: row.url,
    events: row.events as Subscription["events"],
    process: row.process,
    channel: row.channel,
    previous_secret_until: isoOrNull(num(row.previous_secret_until)),
    suspended: row.suspended_at !== null,
    suspended_at: isoOrNull(num(row.suspended_at)),
    suspended_reason: row.suspended_reason,
    failures_in_row: Number(row.failures_in_row),
    pending: Number(row.pending),
    actor: row.actor,
    created_at: iso(Number(row.created_at)),
    updated_at: iso(Number(row.updated_at)),
  };
}

/** Subscriptions by name, in `names` order (absent names left out). */
export async function readSubscriptions(db: Db, names: readonly string[]): Promise<SubscriptionRow[]> {
  if (names.length === 0) return [];
  const rows = rowsOf<SubscriptionRow>(
    await db.execute(
      sql`SELECT ${VIEW_COLUMNS} FROM subscriptions s WHERE s.name IN ${sql`(${sql.join(
        names.map((n) => sql`${n}`),
        sql`, `,
      )})`}`,
    ),
  );
  const byName = new Map(rows.map((r) => [r.name, r]));
  return names.flatMap((n) => byName.get(n) ?? []);
}

/** One subscription's view; 404 when there is none. */
export async function readSubscription(db: Db, name: string): Promise<Subscription> {
  const [row] = await readSubscriptions(db, [name]);
  if (row === undefined) throw notFound(`no subscription is named "${name}"`);
  return subscriptionView(row);
}

/** The URL's refusal, or undefined: http or https, parsable. Where it may connect is checked at each attempt. */
function urlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text.slice(0, 200)}" is not a URL; expected an absolute http or https URL`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `the URL's scheme is "${url.protocol.slice(0, -1)}"; expected http or https`;
  return undefined;
}

/** Creates or replaces subscription `name`; a secret issued here is answered once. */
export async function putSubscription(
  deps: SubscriptionDeps,
  name: string,
  body: SubscriptionBody,
  actor: string | null,
): Promise<{ created: boolean; secret?: string }> {
  const { db, clock, config } = deps;
  const bad = urlProblem(body.url);
  if (bad !== undefined)
    throw invalid(`the subscription's url is refused: ${bad}`, [{ path: "body.url", message: bad }]);
  if (body.secret !== undefined) {
    const key = secretBytes(body.secret);
    if (typeof key === "string")
      throw invalid(`the subscription's secret is refused: ${key}`, [{ path: "body.secret", message: key }]);
  }
  const now = clock.now();
  return inTransaction(db, async (tx) => {
    // Creations are serialised so that the count below is exact across replicas.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('baton.subscriptions'))`);
    const [existing] = rowsOf<{ name: string }>(
      await tx.execute(sql`SELECT name FROM subscriptions WHERE name = ${name} FOR UPDATE`),
    );
    const events = sql`ARRAY[${sql.join(
      body.events.map((e) => sql`${e}`),
      sql`, `,
    )}]::text[]`;
    if (existing !== undefined) {
      await tx.execute(sql`
        UPDATE subscriptions SET url = ${body.url}, events = ${events}, process = ${body.process ?? null},
          channel = ${body.channel ?? null}, secret = COALESCE(${body.secret ?? null}, secret), actor = ${actor}, updated_at = ${now}
        WHERE name = ${name}`);
      return { created: false };
    }
    const [count] = rowsOf<{ n: number }>(await tx.execute(sql`SELECT count(*)::int AS n FROM subscriptions`));
    if (Number(count?.n ?? 0) >= config.limits.subscriptions)
      throw conflict(
        `there are already ${count?.n} subscriptions, the most allowed (${flagOf("subscriptions")}, docs/limits.md); delete one first`,
      );
    const secret = body.secret ?? issueSecret();
    await tx.execute(sql`
      INSERT INTO subscriptions (name, url, events, process, channel, secret, actor, created_at, updated_at)
      VALUES (${name}, ${body.url}, ${events}, ${body.process ?? null}, ${body.channel ?? null}, ${secret}, ${actor}, ${now}, ${now})`);
    return body.secret === undefined ? { created: true, secret } : { created: true };
  });
}

/** Deletes the subscription with its deliveries (its events stay until retention, shared with others). */
export async function deleteSubscription(db: Db, name: string): Promise<boolean> {
  return inTransaction(db, async (tx) => {
    const gone = rowsOf<{ name: string }>(
      await tx.execute(sql`DELETE FROM subscriptions WHERE name = ${name} RETURNING name`),
    );
    if (gone.length === 0) return false;
    await tx.execute(sql`DELETE FROM event_deliveries WHERE subscription = ${name}`);
    return true;
  });
}

/** A new secret; the current one keeps signing beside it for `overlapMs`. */
export async function rotateSecret(
  deps: SubscriptionDeps,
  name: string,
  options: { overlapMs?: number; secret?: string },
): Promise<{ secret: string | null; previousUntil: number }> {
  if (options.secret !== undefined) {
    const key = secretBytes(options.secret);
    if (typeof key === "string")
      throw invalid(`the new secret is refused: ${key}`, [{ path: "body.secret", message: key }]);
  }
  const secret = options.secret ?? issueSecret();
  const until = deps.clock.now() + (options.overlapMs ?? DEFAULT_OVERLAP_MS);
  const rows = rowsOf<{ name: string }>(
    await deps.db.execute(sql`
      UPDATE subscriptions SET previous_secret = secret, previous_secret_until = ${until}, secret = ${secret},
        updated_at = ${deps.clock.now()}
      WHERE name = ${name} RETURNING name`),
  );
  if (rows.length === 0) throw notFound(`no subscription is named "${name}"`);
  return { secret: options.secret === undefined ? secret : null, previousUntil: until };
}

/** Lifts a suspension; pending deliveries that waited for it are due at once. */
export async function resumeSubscription(db: Db, clock: Clock, name: string): Promise<void> {
  const now = clock.now();
  await inTransaction(db, async (tx) => {
    const rows = rowsOf<{ name: string }>(
      await tx.execute(sql`
        UPDATE subscriptions SET suspended_at = NULL, suspended_reason = NULL, failures_in_row = 0, updated_at = ${now}
        WHERE name = ${name} RETURNING name`),
    );
    if (rows.length === 0) throw notFound(`no subscription is named "${name}"`);
    await tx.execute(sql`
      UPDATE event_deliveries SET next_at = ${now} WHERE subscription = ${name} AND status = 'pending' AND next_at > ${now}`);
  });
}

/**
 * Queues events of subscription `name` again as new pending deliveries (the log keeps the
 * earlier ones): one delivery's event, or every event one of its deliveries carried in
 * [from, to], at most --limit-redeliver-events.
 */
export async function redeliver(
  deps: SubscriptionDeps,
  name: string,
  which: { deliveryId: number } | { from: number; to: number },
): Promise<number> {
  const { db, clock, config } = deps;
  const now = clock.now();
  return inTransaction(db, async (tx) => {
    const [sub] = rowsOf<{ name: string }>(
      await tx.execute(sql`SELECT name FROM subscriptions WHERE name = ${name} FOR UPDATE`),
    );
    if (sub === undefined) throw notFound(`no subscription is named "${name}"`);
    const seqs =
      "deliveryId" in which
        ? sql`SELECT event_seq, order_key FROM event_deliveries WHERE subscription = ${name} AND id = ${which.deliveryId}`
        : sql`SELECT DISTINCT d.event_seq, d.order_key FROM event_deliveries d JOIN events ev ON ev.seq = d.event_seq
              WHERE d.subscription = ${name} AND ev.created_at BETWEEN ${which.from} AND ${which.to}`;
    const found = rowsOf<{ event_seq: number; order_key: string }>(
      await tx.execute(sql`${seqs} ORDER BY 1 LIMIT ${config.limits.redeliverEvents + 1}`),
    );
    if ("deliveryId" in which && found.length === 0)
      throw notFound(`subscription "${name}" has no delivery ${which.deliveryId}`);
    if (found.length > config.limits.redeliverEvents)
      throw invalid(
        `the range holds more than ${config.limits.redeliverEvents} events (${flagOf("redeliverEvents")}); redeliver a shorter range`,
        [{ path: "body", message: "too many events in [from, to]" }],
      );
    if (found.length === 0) return 0;
    await tx.execute(sql`
      INSERT INTO event_deliveries (subscription, event_seq, order_key, status, next_at, created_at)
      SELECT ${name}, x.event_seq, x.order_key, 'pending', ${now}, ${now}
      FROM jsonb_to_recordset(${JSON.stringify(found)}::jsonb) AS x(event_seq bigint, order_key text)
      ORDER BY x.event_seq`);
    return found.length;
  });
}
