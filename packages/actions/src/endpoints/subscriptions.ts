// Event subscriptions (extension, docs/events.md): signed webhooks reporting what instances,
// external tasks and schedules did, at least once and in order per instance.
import { DELIVERY_STATUSES, EVENT_TYPES } from "../event-types.js";
import { LIST_SORTS, listQuerySchema, pageEnvelopeSchema } from "../pagination.js";
import { arrayOf, bool, dateTime, int, nullable, processName, responseObject, str, strictObject } from "../schema.js";
import { action } from "./define.js";
import { DELIVERY, EXAMPLE, EXAMPLE_PAGE, NOT_FOUND, SECRET, SUBSCRIPTION } from "./subscription-schemas.js";

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
    scope: { by: "unscoped" },
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
    scope: { by: "unscoped" },
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
    scope: { by: "unscoped" },
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
    scope: { by: "unscoped" },
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
    scope: { by: "unscoped" },
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
    scope: { by: "unscoped" },
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
    scope: { by: "unscoped" },
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
    scope: { by: "unscoped" },
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
