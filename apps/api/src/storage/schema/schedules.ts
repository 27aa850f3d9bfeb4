import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * One row per schedule (docs/schedules.md). `spec` is the calendar, input and policies as
 * stored JSON text; the columns are what the firing pass selects and moves: the next fire
 * time (`next_fire_at`, nominal) and when it is due (`next_due_at`, with jitter), both null
 * once the calendar has no more fires.
 */
export const schedules = pgTable(
  "schedules",
  {
    name: text("name").primaryKey(),
    process: text("process").notNull(),
    channel: text("channel"),
    version: integer("version"),
    spec: text("spec").notNull(),
    paused: boolean("paused").notNull().default(false),
    nextFireAt: bigint("next_fire_at", { mode: "number" }),
    nextDueAt: bigint("next_due_at", { mode: "number" }),
    /** buffer_one's waiting fire time (docs/schedules.md "Overlap"). */
    bufferedFireAt: bigint("buffered_fire_at", { mode: "number" }),
    lastInstanceId: text("last_instance_id"),
    /** Calendar fire times at or before this had their records pruned: a backfill may not reach them. */
    prunedThrough: bigint("pruned_through", { mode: "number" }),
    actor: text("actor"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [
    index("schedules_due_idx").on(t.nextDueAt).where(sql`NOT ${t.paused}`),
    index("schedules_buffered_idx").on(t.name).where(sql`${t.bufferedFireAt} IS NOT NULL`),
    index("schedules_channel_idx").on(t.process, t.channel),
  ],
);

/**
 * One row per fire of a schedule. A fire time is recorded once per schedule and side: the unique index is the
 * exactly-once guarantee of docs/schedules.md "Fires". `side`: `calendar` (scheduled and backfill
 * fires), `trigger`, or `missed` (a note for a run of fire times outside the catch-up window, which
 * does not count as fired).
 */
export const scheduleFires = pgTable(
  "schedule_fires",
  {
    id: text("id").primaryKey(),
    schedule: text("schedule").notNull(),
    fireAt: bigint("fire_at", { mode: "number" }).notNull(),
    side: text("side").notNull(),
    /** scheduled | trigger | backfill */
    origin: text("origin").notNull(),
    /** started | skipped | buffered | failed | missed */
    outcome: text("outcome").notNull(),
    instanceId: text("instance_id"),
    reason: text("reason"),
    dueAt: bigint("due_at", { mode: "number" }).notNull(),
    firedAt: bigint("fired_at", { mode: "number" }).notNull(),
  },
  (t) => [
    uniqueIndex("schedule_fires_once_idx").on(t.schedule, t.side, t.fireAt),
    index("schedule_fires_recent_idx").on(t.schedule, t.id),
  ],
);
