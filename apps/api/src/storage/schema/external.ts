import { bigint, bigserial, index, integer, pgTable, text } from "drizzle-orm/pg-core";

/**
 * One row per instance parked on an external task (the claim queue). Deleted when the task
 * moves on (resolve, signal, timeout). `task_epoch` ties it to one task visit; `claim_epoch`
 * increases with every claim, so a token of an earlier claim no longer matches.
 */
export const externalWaits = pgTable(
  "external_waits",
  {
    instanceId: text("instance_id").primaryKey(),
    task: text("task").notNull(),
    taskEpoch: integer("task_epoch").notNull(),
    /** The evaluated `input` shape as JSON text. */
    input: text("input").notNull(),
    waitingSince: bigint("waiting_since", { mode: "number" }).notNull(),
    deadline: bigint("deadline", { mode: "number" }),
    claimEpoch: integer("claim_epoch").notNull().default(0),
    claimedBy: text("claimed_by"),
    claimExpiresAt: bigint("claim_expires_at", { mode: "number" }),
  },
  (t) => [index("external_waits_queue_idx").on(t.waitingSince, t.instanceId)],
);

/**
 * Every claim handed out, by the sha256 of its token (the token itself is never stored). A
 * token whose visit or claim is over is kept for CLAIM_TOKEN_RETENTION_MS (so a late answer
 * still gets 409 "the visit is over" rather than 404), then pruned by the engine.
 */
export const externalClaims = pgTable(
  "external_claims",
  {
    tokenHash: text("token_hash").primaryKey(),
    instanceId: text("instance_id").notNull(),
    taskEpoch: integer("task_epoch").notNull(),
    claimEpoch: integer("claim_epoch").notNull(),
    workerId: text("worker_id").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [index("external_claims_instance_idx").on(t.instanceId), index("external_claims_created_idx").on(t.createdAt)],
);

/** Outcomes signalled before their task armed; consumed FIFO (by seq) when it next arms. */
export const signals = pgTable(
  "signals",
  {
    seq: bigserial("seq", { mode: "number" }).primaryKey(),
    instanceId: text("instance_id").notNull(),
    task: text("task").notNull(),
    /** `{"result": …}` or `{"error": {code, message?, data?}}` as JSON text, already validated. */
    outcome: text("outcome").notNull(),
    actor: text("actor"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [index("signals_instance_task_idx").on(t.instanceId, t.task, t.seq)],
);
