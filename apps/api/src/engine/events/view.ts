// How subscriptions and their deliveries read in the API (docs/events.md "The delivery log"):
// pages of the keyset lists of views/pagination.ts; secrets are never among the columns read.
import type { Delivery, ListDeliveriesQuery, Subscription } from "@baton/actions";
import { and, eq, inArray } from "drizzle-orm";
import { iso, isoOrNull } from "../../format.js";
import { notFound } from "../../refusal.js";
import type { Db } from "../../storage/db.js";
import { eventDeliveries, events, subscriptions } from "../../storage/schema/index.js";
import { type ListQuery, type ListSpec, mapPage, type Page, paginate } from "../../views/pagination.js";
import { eventId } from "./deliver.js";
import { readSubscriptions, subscriptionView } from "./subscriptions.js";

type SubscriptionRow = typeof subscriptions.$inferSelect;
type DeliveryRow = typeof eventDeliveries.$inferSelect;

const subscriptionList: ListSpec<SubscriptionRow> = {
  list: "subscriptions",
  sorts: { name: { columns: [subscriptions.name], values: (r) => [r.name] } },
  defaultSort: "name",
  defaultOrder: "asc",
};

const deliveryList: ListSpec<DeliveryRow> = {
  list: "deliveries",
  sorts: { id: { columns: [eventDeliveries.id], values: (r) => [r.id] } },
  defaultSort: "id",
  defaultOrder: "desc",
};

export async function listSubscriptions(db: Db, query: ListQuery, countBound: number): Promise<Page<Subscription>> {
  const page = await paginate(db, subscriptions, undefined, subscriptionList, query, countBound);
  const rows = await readSubscriptions(
    db,
    page.items.map((r) => r.name),
  );
  return { items: rows.map(subscriptionView), page: page.page };
}

export async function listDeliveries(
  db: Db,
  name: string,
  query: ListDeliveriesQuery,
  countBound: number,
): Promise<Page<Delivery>> {
  const [sub] = await db.select({ name: subscriptions.name }).from(subscriptions).where(eq(subscriptions.name, name));
  if (sub === undefined) throw notFound(`no subscription is named "${name}"`);
  const where = and(
    eq(eventDeliveries.subscription, name),
    query.status === undefined ? undefined : eq(eventDeliveries.status, query.status),
  );
  const page = await paginate(db, eventDeliveries, where, deliveryList, query, countBound);
  const seqs = [...new Set(page.items.map((r) => r.eventSeq))];
  const types = new Map(
    seqs.length === 0
      ? []
      : (await db.select({ seq: events.seq, type: events.type }).from(events).where(inArray(events.seq, seqs))).map(
          (e) => [Number(e.seq), e.type],
        ),
  );
  return mapPage(page, (r) => ({
    id: String(r.id),
    event_id: eventId(Number(r.eventSeq)),
    type: (types.get(Number(r.eventSeq)) ?? "instance.completed") as Delivery["type"],
    order_key: r.orderKey,
    status: r.status as Delivery["status"],
    attempts: r.attempts,
    next_attempt_at: r.status === "pending" ? iso(Number(r.nextAt)) : null,
    last_status: r.lastStatus,
    last_error: r.lastError,
    latency_ms: r.latencyMs,
    created_at: iso(Number(r.createdAt)),
    delivered_at: isoOrNull(r.deliveredAt === null ? null : Number(r.deliveredAt)),
  }));
}
