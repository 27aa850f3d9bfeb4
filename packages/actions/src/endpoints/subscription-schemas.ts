// Schemas and examples of the subscription actions (endpoints/subscriptions.ts, docs/events.md).
import { DELIVERY_STATUSES, EVENT_TYPES } from "../event-types.js";
import { arrayOf, bool, dateTime, int, nullable, responseObject, str } from "../schema.js";

export const NOT_FOUND = { 404: "No subscription has this name." };
export const SECRET = str("A Standard Webhooks signing secret: `whsec_` and the standard base64 of 24 to 64 bytes.", {
  pattern: "^whsec_[A-Za-z0-9+/]+={0,2}$",
  maxLength: 100,
});

export const SUBSCRIPTION = responseObject(
  {
    name: str("The subscription's name."),
    url: str("Where events are POSTed."),
    events: arrayOf(str("An event type.", { enum: [...EVENT_TYPES] }), "The event types it wants."),
    process: nullable(str("Only events of this process.")),
    channel: nullable(str("Only events of the version this channel points at when the event happens.")),
    previous_secret_until: nullable(dateTime("The previous secret still signs until this instant (after a rotation).")),
    suspended: bool("Deliveries are held until it is resumed."),
    suspended_at: nullable(dateTime("When it was suspended.")),
    suspended_reason: nullable(str("Why it was suspended.")),
    failures_in_row: int("Deliveries parked as failed since the last success."),
    pending: int("Deliveries waiting to be sent (including retries)."),
    actor: nullable(str("Who created or last replaced it.")),
    created_at: dateTime("Created."),
    updated_at: dateTime("Last changed."),
  },
  [
    "name",
    "url",
    "events",
    "process",
    "channel",
    "suspended",
    "failures_in_row",
    "pending",
    "created_at",
    "updated_at",
  ],
  { title: "Subscription" },
);

export const DELIVERY = responseObject(
  {
    id: str("The delivery's id."),
    event_id: str("The event's id, sent as `webhook-id` (the same on every attempt)."),
    type: str("The event type.", { enum: [...EVENT_TYPES] }),
    order_key: str("What the event is about (an instance id, `schedule:<name>`); events of one key go out in order."),
    status: str("pending, delivered or failed (parked after --limit-delivery-attempts).", {
      enum: [...DELIVERY_STATUSES],
    }),
    attempts: int("Attempts made."),
    next_attempt_at: nullable(dateTime("When a pending delivery is next tried.")),
    last_status: nullable(int("The HTTP status of the last answer.")),
    last_error: nullable(str("Why the last attempt failed (the answer's first characters, or the connection error).")),
    latency_ms: nullable(int("Duration of the last attempt.")),
    created_at: dateTime("When the event was recorded."),
    delivered_at: nullable(dateTime("When the receiver answered 2xx.")),
  },
  ["id", "event_id", "type", "order_key", "status", "attempts", "created_at"],
  { title: "Delivery" },
);

export const EXAMPLE: Record<string, unknown> = {
  name: "orders-done",
  url: "https://hooks.example.com/baton",
  events: ["instance.completed", "instance.failed"],
  process: "order",
  channel: null,
  previous_secret_until: null,
  suspended: false,
  suspended_at: null,
  suspended_reason: null,
  failures_in_row: 0,
  pending: 0,
  actor: "deployer",
  created_at: "2026-12-07T10:00:00.000Z",
  updated_at: "2026-12-07T10:00:00.000Z",
};
export const EXAMPLE_PAGE = {
  size: 1,
  items_before: 0,
  items_after: 0,
  sort: "name",
  order: "asc",
  next_cursor: null,
  previous_cursor: null,
};
