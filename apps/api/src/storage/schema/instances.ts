import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

// One row is the queue entry, the state and the tree node of an instance (docs/architecture.md#storage-appsapisrcstorage).
// JSON values (state, output) are text so exact decimals survive (see @baton/expr json.ts).
export const instances = pgTable(
  "instances",
  {
    id: text("id").primaryKey(),
    rootId: text("root_id").notNull(),
    parentId: text("parent_id"),
    spawnTask: text("spawn_task"),
    spawnKey: text("spawn_key"),
    parentTaskEpoch: integer("parent_task_epoch").notNull().default(0),
    /**
     * Children of the current spawn not yet settled. Each child's settling write decrements it
     * (UPDATE re-reads the row it locks, so concurrent siblings never lose a decrement, as a
     * count of sibling rows would); the one that reaches 0 wakes the parent.
     */
    pendingChildren: integer("pending_children").notNull().default(0),
    process: text("process").notNull(),
    version: integer("version").notNull(),
    status: text("status").notNull(),
    phase: text("phase"),
    task: text("task").notNull(),
    state: text("state").notNull(),
    retryCount: integer("retry_count").notNull().default(0),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    output: text("output"),
    /** Due time for the pump; null = not runnable by time (parked, settled, paused). */
    wakeAt: bigint("wake_at", { mode: "number" }),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: bigint("lease_expires_at", { mode: "number" }),
    previousOwner: text("previous_owner"),
    leaseEpoch: integer("lease_epoch").notNull().default(0),
    /**
     * On a root row only (null on children): an upper bound of the instances its tree will hold —
     * its rows plus the children reserved by spawning advances in flight (docs/limits.md#trees).
     * Only a reservation (engine/pump/child-environment.ts) moves it up, under the root's row lock.
     */
    treeSize: integer("tree_size"),
    /**
     * Children this row's advance under lease epoch `reservedEpoch` reserved in its tree's
     * tree_size and has not inserted yet; the advance's write sets it back to 0 (pump/commit.ts).
     */
    reservedChildren: integer("reserved_children").notNull().default(0),
    reservedEpoch: integer("reserved_epoch"),
    /** Claims since the last landed advance write; past --limit-advance-attempts: engine.crashed. */
    attempts: integer("attempts").notNull().default(0),
    taskEpoch: integer("task_epoch").notNull().default(0),
    externalClaimEpoch: integer("external_claim_epoch").notNull().default(0),
    nextReplayable: boolean("next_replayable").notNull().default(true),
    /** The business key given at start (docs/api.md "Business keys"); null for children and when none was given. */
    key: text("key"),
    /**
     * The W3C traceparent every span of this instance hangs from (docs/tracing.md "The trace of
     * an instance"): its start span's, or for a child the spawning advance's. Null when it
     * started with tracing off; its spans then use the context derived from its ids.
     */
    traceParent: text("trace_parent"),
    /** Operator request landed while a worker held the lease: "pause" | "cancel". */
    requested: text("requested"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [
    // Partial (docs/performance.md "Indexes of instances"): a row version gets an entry only
    // where the predicate holds, and settled rows (wake_at null) and roots (parent_id null) are
    // most rows. Every query using these names the predicate's column with a strict comparison
    // (wake_at <= $now, parent_id = $id), which is how PostgreSQL proves the index applies.
    index("instances_due_idx").on(t.status, t.wakeAt).where(sql`wake_at IS NOT NULL`),
    index("instances_root_idx").on(t.rootId),
    // The lists' indexes (docs/performance.md "Reads at ten million instances"): each filter the
    // UI offers leads an index in the list's default order (created_at, id), so a page and its
    // bounded counts read O(page + --limit-page-count) entries whatever the table holds.
    index("instances_parent_created_idx").on(t.parentId, t.createdAt, t.id).where(sql`parent_id IS NOT NULL`),
    // parent_id included: "roots only" (the default) is decided in the index, without the heap.
    index("instances_created_list_idx").on(t.createdAt, t.id, t.parentId),
    index("instances_updated_list_idx").on(t.updatedAt, t.id, t.parentId),
    index("instances_process_created_idx").on(t.process, t.createdAt, t.id, t.parentId),
    // Partial: most rows have neither, and every write of a row (updated_at changes, so never a
    // HOT update) adds an entry to each index whose predicate it meets (docs/performance.md).
    index("instances_error_created_idx")
      .on(t.errorCode, t.createdAt, t.id, t.parentId)
      .where(sql`error_code IS NOT NULL`),
    index("instances_key_idx").on(t.key).where(sql`key IS NOT NULL`),
    // Lists by status in their default order, and every status-only selection (bulk verbs, the
    // sampler's live counts, abandoned pause/cancel); the trailing columns let counts that the
    // counters cannot answer (views/instance-counts.ts) scan this index alone.
    index("instances_status_created_idx").on(t.status, t.createdAt, t.id, t.parentId, t.process, t.phase, t.errorCode),
    // The activity over time (views/instance-activity.ts, docs/api.md "Activity over time"): settled
    // roots by the instant they settled, read index-only over a window. Partial on exactly the
    // predicate that query repeats, so a running row's writes never touch it.
    index("instances_settled_idx")
      .on(t.updatedAt, t.process, t.status)
      .where(sql`parent_id IS NULL AND status IN ('completed', 'failed', 'raised')`),
  ],
);

export const logs = pgTable(
  "logs",
  {
    id: text("id").primaryKey(),
    instanceId: text("instance_id").notNull(),
    rootId: text("root_id").notNull(),
    level: text("level").notNull(),
    event: text("event").notNull(),
    message: text("message").notNull(),
    task: text("task"),
    actor: text("actor"),
    /** JSON object text or null. */
    data: text("data"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [
    index("logs_root_idx").on(t.rootId, t.createdAt, t.id),
    index("logs_instance_idx").on(t.instanceId, t.createdAt, t.id),
  ],
);

/**
 * GET /instances/counts without a scan (docs/api.md "Counts"): instances per (status, process,
 * phase, error_code, root), '' for an absent phase or error code. A trigger of migration 0013
 * appends a delta row for every insert, delete and counted change of `instances` (never a
 * read-modify-write of a shared row, so concurrent writers never wait on each other); the
 * pump's rollup chore (engine/pump/count-rollup.ts) moves deltas into the totals in one
 * statement. The count is the totals plus the pending deltas, exact in any snapshot.
 */
export const instanceCounts = pgTable(
  "instance_counts",
  {
    status: text("status").notNull(),
    process: text("process").notNull(),
    phase: text("phase").notNull(),
    errorCode: text("error_code").notNull(),
    root: boolean("root").notNull(),
    n: bigint("n", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.status, t.process, t.phase, t.errorCode, t.root] })],
);

export const instanceCountDeltas = pgTable("instance_count_deltas", {
  status: text("status").notNull(),
  process: text("process").notNull(),
  phase: text("phase").notNull(),
  errorCode: text("error_code").notNull(),
  root: boolean("root").notNull(),
  n: integer("n").notNull(),
});

/** Content-addressed values externalized from instance state (sha256 of the JSON text). */
export const objects = pgTable("objects", {
  ref: text("ref").primaryKey(),
  value: text("value").notNull(),
  size: integer("size").notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
});

/** A row of `instances` as inserted (engine/starts/fresh-row.ts freshInstanceRow builds every fresh one). */
export type InstanceInsert = typeof instances.$inferInsert;
