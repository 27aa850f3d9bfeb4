import { sql } from "drizzle-orm";
import { bigint, bigserial, index, integer, pgTable, text } from "drizzle-orm/pg-core";

/**
 * One row per subscription (docs/events.md "Subscriptions"). `events` is the event types it
 * wants; `process` and `channel` narrow them. The triggers of migration 0018 read this table in
 * the transaction of every state change that causes an event, so a change here is seen by the
 * next event written. `secret` is the signing key itself (docs/events.md "Signing secrets"):
 * the server must sign with it, so it cannot be hashed; it is never shown after it is issued.
 */
export const subscriptions = pgTable("subscriptions", {
  name: text("name").primaryKey(),
  url: text("url").notNull(),
  events: text("events").array().notNull(),
  process: text("process"),
  channel: text("channel"),
  secret: text("secret").notNull(),
  /** The secret before the last rotation, still used to sign until `previous_secret_until`. */
  previousSecret: text("previous_secret"),
  previousSecretUntil: bigint("previous_secret_until", { mode: "number" }),
  /** Deliveries parked as failed in a row; at --limit-subscription-failures the subscription is suspended. */
  failuresInRow: integer("failures_in_row").notNull().default(0),
  suspendedAt: bigint("suspended_at", { mode: "number" }),
  suspendedReason: text("suspended_reason"),
  actor: text("actor"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

/**
 * The outbox: one row per event some subscription wanted when it happened, written by a trigger
 * in the transaction of the change (docs/events.md "The outbox"). `seq` orders the events of one
 * `order_key` (an instance, a schedule): the change that writes the next one waits on the row
 * lock of the change before it. `data` is the payload's `data` object as JSON text (output as
 * stored: placeholders of externalised values and unredacted secrets are resolved when sent).
 */
export const events = pgTable(
  "events",
  {
    seq: bigserial("seq", { mode: "number" }).primaryKey(),
    type: text("type").notNull(),
    orderKey: text("order_key").notNull(),
    process: text("process"),
    data: text("data").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [index("events_created_idx").on(t.createdAt)],
);

/**
 * One row per (subscription, event) to send, and its attempts (docs/events.md "Delivery").
 * `pending` rows are the queue: the head of each (subscription, order_key) is claimable when
 * `next_at` has come and no lease is live; a claim moves `lease_epoch`, and a result is written
 * only under the epoch it claimed.
 */
export const eventDeliveries = pgTable(
  "event_deliveries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    subscription: text("subscription").notNull(),
    eventSeq: bigint("event_seq", { mode: "number" }).notNull(),
    orderKey: text("order_key").notNull(),
    /** pending | delivered | failed */
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAt: bigint("next_at", { mode: "number" }).notNull(),
    leaseOwner: text("lease_owner"),
    leaseUntil: bigint("lease_until", { mode: "number" }),
    leaseEpoch: integer("lease_epoch").notNull().default(0),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    latencyMs: integer("latency_ms"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    deliveredAt: bigint("delivered_at", { mode: "number" }),
  },
  (t) => [
    index("event_deliveries_due_idx").on(t.nextAt).where(sql`status = 'pending'`),
    index("event_deliveries_order_idx").on(t.subscription, t.orderKey, t.eventSeq).where(sql`status = 'pending'`),
    index("event_deliveries_log_idx").on(t.subscription, t.id),
  ],
);
