// Request and response types of the event actions (docs/events.md), for the typed client.

/** Every event type a subscription may name (docs/events.md "Event types"). */
export const EVENT_TYPES = [
  "instance.completed",
  "instance.failed",
  "instance.raised",
  "instance.cancelled",
  "instance.paused",
  "external_task.waiting",
  "schedule.fire_failed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface SubscriptionBody {
  url: string;
  events: EventType[];
  process?: string;
  channel?: string;
  /** `whsec_` + base64 of 24 to 64 bytes; without it the server issues one and answers it once. */
  secret?: string;
}

export interface Subscription {
  name: string;
  url: string;
  events: EventType[];
  process: string | null;
  channel: string | null;
  /** Set while the previous secret still signs (after a rotation). */
  previous_secret_until: string | null;
  suspended: boolean;
  suspended_at: string | null;
  suspended_reason: string | null;
  failures_in_row: number;
  pending: number;
  actor: string | null;
  created_at: string;
  updated_at: string;
}

export interface Delivery {
  id: string;
  event_id: string;
  type: EventType;
  order_key: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  latency_ms: number | null;
  created_at: string;
  delivered_at: string | null;
}

export interface ListDeliveriesQuery {
  status?: DeliveryStatus;
  sort?: "id";
  order?: "asc" | "desc";
  limit?: number;
  after?: string;
  before?: string;
}

export interface RedeliverBody {
  delivery_id?: string;
  from?: string;
  to?: string;
}
