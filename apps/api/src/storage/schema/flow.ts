import { bigint, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

// Flow control (docs/flow-control.md). `scope` names what is limited: `process:<name>` (live
// roots of a process), `task:<name>/<task>` (visits of a task), `rate:<name>/<task>` (starts of a
// task's action); `key` is the evaluated key expression of the holder or waiter.

/**
 * A slot (or, for a rate scope, a start permit) held by one instance. It is held exactly while
 * its instance is live and still on the visit it was granted for: `task_epoch` (-1: any, a
 * process slot) and `attempt` (the visit's retry_count, a rate permit; -1 otherwise) match the
 * instance row. So the transaction that moves the instance off the visit frees the slot; the
 * grant pass deletes such rows before it counts (engine/flow/grant.ts).
 */
export const flowSlots = pgTable(
  "flow_slots",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    instanceId: text("instance_id").notNull(),
    taskEpoch: integer("task_epoch").notNull(),
    attempt: integer("attempt").notNull(),
    grantedAt: bigint("granted_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.instanceId] }), index("flow_slots_key_idx").on(t.scope, t.key)],
);

/**
 * An instance waiting for a slot or a permit: written by the gate with the write that parks the
 * instance (running, no lease, wake_at null), deleted by the grant that wakes it. A row whose
 * instance moved off the visit (cancel, retry, upgrade) is deleted by the next pass.
 */
export const flowWaits = pgTable(
  "flow_waits",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    instanceId: text("instance_id").notNull(),
    /** `concurrency` or `rate_limit`. */
    reason: text("reason").notNull(),
    taskEpoch: integer("task_epoch").notNull(),
    attempt: integer("attempt").notNull(),
    /** The limit of the version the instance runs (versions of one process may differ). */
    lim: integer("lim").notNull(),
    /** A rate limit's period in ms; 0 for concurrency. */
    perMs: bigint("per_ms", { mode: "number" }).notNull(),
    priority: integer("priority").notNull().default(0),
    since: bigint("since", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.scope, t.instanceId] }),
    index("flow_waits_key_idx").on(t.scope, t.key, t.since),
    index("flow_waits_instance_idx").on(t.instanceId),
  ],
);

/**
 * One row per (scope, key) served lately: when a pass last granted it (`served_at`: the pass
 * serves the least recently served key first, round-robin across passes) and, for a rate scope,
 * the starts of its last period (`starts`: their times, comma-separated, oldest first). Rows not
 * served for a day (the longest rate period) are pruned by the pass.
 */
export const flowKeys = pgTable(
  "flow_keys",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    servedAt: bigint("served_at", { mode: "number" }).notNull(),
    starts: text("starts").notNull().default(""),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index("flow_keys_served_idx").on(t.servedAt)],
);
