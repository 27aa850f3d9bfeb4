// Event subscriptions (extension, docs/events.md): signed webhooks reporting what instances,
// external tasks and schedules did, at least once and in order per instance.
import { DELIVERY_STATUSES, EVENT_TYPES } from "../event-types.js";
import { LIST_SORTS, listQuerySchema, pageEnvelopeSchema } from "../pagination.js";
import { arrayOf, bool, dateTime, int, nullable, processName, responseObject, str, strictObject } from "../schema.js";
import { action } from "./define.js";

const TAG = "subscriptions";
export const SUBSCRIPTION_NAME_PATTERN = "^[a-z0-9][a-z0-9_.-]{0,127}$";

const NAME_PARAMS = strictObject(
  {
    name: str("Subscription name: lower-case letters, digits, `_`, `.`, `-`; at most 128.", {
      pattern: SUBSCRIPTION_NAME_PATTERN,
    }),
  },
  ["name"],
);
const NOT_FOUND = { 404: "No subscription has this name." };
const SECRET = str("A Standard Webhooks signing secret: `whsec_` and the standard base64 of 24 to 64 bytes.", {
  pattern: "^whsec_[A-Za-z0-9+/]+={0,2}$",
  maxLength: 100,
});

const SUBSCRIPTION = responseObject(
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

const DELIVERY = responseObject(
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

const EXAMPLE: Record<string, unknown> = {
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
const EXAMPLE_PAGE = {
  size: 1,
  items_before: 0,
  items_after: 0,
  sort: "name",
  order: "asc",
  next_cursor: null,
  previous_cursor: null,
};

export const subscriptionActions = [
  action({
    name: "putSubscription",
    method: "put",
    path: "/subscriptions/{name}",
    tag: TAG,
    extension: true,
    summary: "Create or replace a subscription",
    description:
      "Creates the subscription, or replaces its URL, events and filters (its secret, deliveries and suspension are kept). " +
      "A new subscription without `secret` gets one issued, answered once in `secret` and never shown again. See docs/events.md.",
    permissions: ["deploy"],
    params: NAME_PARAMS,
    body: strictObject(
      {
        url: str("An http or https URL the events are POSTed to; it obeys the fetch address rules.", {
          minLength: 1,
          maxLength: 2048,
        }),
        events: arrayOf(str("An event type.", { enum: [...EVENT_TYPES] }), "The event types it wants.", {
          minItems: 1,
          maxItems: EVENT_TYPES.length,
          uniqueItems: true,
        }),
        process: processName("Only events of this process."),
        channel: str("Only events of the version this channel points at when the event happens.", {
          minLength: 1,
          maxLength: 128,
        }),
        secret: SECRET,
      },
      ["url", "events"],
      { title: "SubscriptionBody" },
    ),
    responses: {
      200: {
        description: "The subscription; `secret` only when one was issued by this request.",
        schema: {
          ...SUBSCRIPTION,
          title: "SubscriptionPut",
          properties: {
            ...(SUBSCRIPTION.properties as object),
            created: bool("A new subscription."),
            secret: str("The issued signing secret, shown this once."),
          },
        },
      },
    },
    errors: [400, 409, 500],
    errorDescriptions: {
      400: "A field is invalid: the URL, an event type, the secret.",
      409: "Creating it would pass `--limit-subscriptions`.",
    },
    example: {
      request: {
        params: { name: "orders-done" },
        body: {
          url: "https://hooks.example.com/baton",
          events: ["instance.completed", "instance.failed"],
          process: "order",
        },
      },
      response: { ...EXAMPLE, created: true, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
    },
  }),
  action({
    name: "listSubscriptions",
    method: "get",
    path: "/subscriptions",
    tag: TAG,
    extension: true,
    summary: "List subscriptions",
    description: "Every subscription, by name; secrets are never shown.",
    permissions: ["read"],
    query: listQuerySchema(LIST_SORTS.subscriptions),
    responses: {
      200: { description: "A page of subscriptions.", schema: pageEnvelopeSchema(SUBSCRIPTION, "SubscriptionPage") },
    },
    errors: [400, 500],
    example: { request: {}, response: { items: [EXAMPLE], page: EXAMPLE_PAGE } },
  }),
  action({
    name: "getSubscription",
    method: "get",
    path: "/subscriptions/{name}",
    tag: TAG,
    extension: true,
    summary: "Show a subscription",
    description: "The subscription and its delivery counts; the secret is never shown.",
    permissions: ["read"],
    params: NAME_PARAMS,
    responses: { 200: { description: "The subscription.", schema: SUBSCRIPTION } },
    errors: [400, 404, 500],
    errorDescriptions: NOT_FOUND,
    example: { request: { params: { name: "orders-done" } }, response: EXAMPLE },
  }),
  action({
    name: "deleteSubscription",
    method: "delete",
    path: "/subscriptions/{name}",
    tag: TAG,
    extension: true,
    summary: "Delete a subscription",
    description: "Deletes the subscription and its deliveries, sent or not.",
    permissions: ["deploy"],
    params: NAME_PARAMS,
    responses: {
      200: {
        description: "Whether a subscription was deleted.",
        schema: responseObject({ deleted: bool("False when there was none.") }, ["deleted"]),
      },
    },
    errors: [400, 500],
    example: { request: { params: { name: "orders-done" } }, response: { deleted: true } },
  }),
  action({
    name: "rotateSubscriptionSecret",
    method: "post",
    path: "/subscriptions/{name}/rotate-secret",
    tag: TAG,
    extension: true,
    summary: "Rotate a subscription's signing secret",
    description:
      "Issues a new secret (answered once). Until `overlap_ms` has passed (default one day) every delivery is signed with both, " +
      "so receivers can switch without refusing a delivery.",
    permissions: ["deploy"],
    params: NAME_PARAMS,
    body: strictObject(
      {
        overlap_ms: int("How long the previous secret still signs, in ms (at most 7 days). Default one day.", {
          minimum: 0,
          maximum: 7 * 86_400_000,
        }),
        secret: SECRET,
      },
      [],
    ),
    responses: {
      200: {
        description: "The new secret, shown this once, and until when the previous one still signs.",
        schema: responseObject(
          {
            secret: nullable(str("The issued secret; null when the request gave it.")),
            previous_secret_until: dateTime("The previous secret signs until then."),
          },
          ["secret", "previous_secret_until"],
        ),
      },
    },
    errors: [400, 404, 500],
    errorDescriptions: NOT_FOUND,
    example: {
      request: { params: { name: "orders-done" }, body: { overlap_ms: 3_600_000 } },
      response: { secret: "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD", previous_secret_until: "2026-12-07T11:00:00.000Z" },
    },
  }),
  action({
    name: "resumeSubscription",
    method: "post",
    path: "/subscriptions/{name}/resume",
    tag: TAG,
    extension: true,
    summary: "Resume a suspended subscription",
    description: "Lifts the suspension: its pending deliveries are sent from the next pass, in order.",
    permissions: ["deploy"],
    params: NAME_PARAMS,
    responses: { 200: { description: "The subscription.", schema: SUBSCRIPTION } },
    errors: [400, 404, 500],
    errorDescriptions: NOT_FOUND,
    example: { request: { params: { name: "orders-done" } }, response: EXAMPLE },
  }),
  action({
    name: "listDeliveries",
    method: "get",
    path: "/subscriptions/{name}/deliveries",
    tag: TAG,
    extension: true,
    summary: "A subscription's delivery log",
    description: "Its deliveries, newest first: status, attempts, latency and the last error.",
    permissions: ["read"],
    params: NAME_PARAMS,
    query: listQuerySchema(LIST_SORTS.deliveries, {
      status: str("Only deliveries in this status.", { enum: [...DELIVERY_STATUSES] }),
    }),
    responses: { 200: { description: "A page of deliveries.", schema: pageEnvelopeSchema(DELIVERY, "DeliveryPage") } },
    errors: [400, 404, 500],
    errorDescriptions: NOT_FOUND,
    example: {
      request: { params: { name: "orders-done" }, query: { status: "failed" } },
      response: {
        items: [
          {
            id: "42",
            event_id: "evt_1842",
            type: "instance.completed",
            order_key: "0193a9a2-7c1e-7b53-9d0e-2f1c1a4b5c6d",
            status: "failed",
            attempts: 15,
            next_attempt_at: null,
            last_status: 503,
            last_error: "HTTP 503: unavailable",
            latency_ms: 12,
            created_at: "2026-12-07T10:00:00.000Z",
            delivered_at: null,
          },
        ],
        page: { ...EXAMPLE_PAGE, sort: "id", order: "desc" },
      },
    },
  }),
  action({
    name: "redeliver",
    method: "post",
    path: "/subscriptions/{name}/redeliver",
    tag: TAG,
    extension: true,
    summary: "Send events again",
    description:
      "Queues one delivery again (`delivery_id`), or every event the subscription was sent or tried in [`from`, `to`] " +
      "(at most `--limit-redeliver-events`). Each goes out with its original `webhook-id`.",
    permissions: ["deploy"],
    params: NAME_PARAMS,
    body: strictObject({
      delivery_id: str("A delivery of this subscription.", { pattern: "^[0-9]{1,18}$" }),
      from: dateTime("First instant (events recorded at or after)."),
      to: dateTime("Last instant (events recorded at or before)."),
    }),
    responses: {
      200: {
        description: "How many deliveries were queued.",
        schema: responseObject({ queued: int("Deliveries queued.") }, ["queued"]),
      },
    },
    errors: [400, 404, 500],
    errorDescriptions: {
      ...NOT_FOUND,
      400: "Neither `delivery_id` nor both `from` and `to`, or a range holding more than `--limit-redeliver-events`.",
    },
    example: { request: { params: { name: "orders-done" }, body: { delivery_id: "42" } }, response: { queued: 1 } },
  }),
];
