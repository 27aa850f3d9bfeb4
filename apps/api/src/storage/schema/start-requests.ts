import { bigint, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * One row per `POST /instances` that carried an `Idempotency-Key` (docs/instances.md,
 * "Idempotent starts"): a retry with the same key from the same caller and the same body
 * answers `instance_id` instead of starting another. `scope` is the caller (its actor; "" when
 * the server reads no credential), so two callers' keys never collide. Rows older than the
 * retention window are pruned by the engine and no longer match.
 */
export const startRequests = pgTable(
  "start_requests",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    /** sha256 of the request body in canonical form (keys sorted). */
    requestHash: text("request_hash").notNull(),
    instanceId: text("instance_id").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index("start_requests_created_idx").on(t.createdAt)],
);
