import { bigint, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * One row per inbound hook (docs/events.md "Hooks"). `secret` is what the verifier needs: the
 * signing key itself for the HMAC verifiers (they recompute the sender's signature, so it
 * cannot be hashed), the sha256 of the shared value for `header`. `spec` is the rest of the PUT
 * body as JSON text.
 */
export const hooks = pgTable("hooks", {
  name: text("name").primaryKey(),
  verifier: text("verifier").notNull(),
  secret: text("secret").notNull(),
  spec: text("spec").notNull(),
  actor: text("actor"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

/**
 * The deliveries a hook acted on, one per sender delivery id: the key is what makes a replay
 * or a sender's retry do nothing again (docs/events.md "Replays and retries").
 */
export const hookDeliveries = pgTable(
  "hook_deliveries",
  {
    hook: text("hook").notNull(),
    deliveryId: text("delivery_id").notNull(),
    /** started | signalled | pending (a signal being delivered) */
    outcome: text("outcome").notNull(),
    instanceId: text("instance_id"),
    receivedAt: bigint("received_at", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.hook, t.deliveryId] }),
    index("hook_deliveries_recent_idx").on(t.hook, t.receivedAt),
  ],
);
