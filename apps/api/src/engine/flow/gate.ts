import { sql } from "drizzle-orm";
import type { Clock } from "../../clock.js";
import { type Db, inTransaction, rowsOf } from "../../storage/db.js";
import { sqlTextArray } from "../../storage/sql-arrays.js";
import { appendLogs } from "../audit-log.js";
import type { EngineMetrics } from "../../metrics/metrics.js";
import type { CompiledDefinition } from "../advance/compiled-definition.js";
import type { InMemoryBasis } from "../advance/in-memory.js";
import type { InstanceState } from "../advance/instance-state.js";
import { failureOf, type TaskFailure } from "../advance/task-failure.js";
import type { LeasedRow } from "../leases.js";
import type { WriteOutcome } from "../pump/commit.js";
import { type FlowNeed, flowNeeds } from "./needs.js";

// The gate before an advance of an instance whose definition declares flow control
// (docs/flow-control.md "Slots"): the advance runs only when the instance holds every slot and
// permit it needs; otherwise ONE transaction, fenced by the lease, parks it (running, no lease,
// wake_at null) and queues it in flow_waits for the grant pass (grant.ts).

/** The advisory lock class of flow control ("FLOW"): the pass takes it exclusive, the gate's check shared. */
export const FLOW_LOCK_CLASS = 1_179_406_167;

export interface GateDeps {
  db: Db;
  clock: Clock;
  workerId: string;
  metrics: EngineMetrics;
  maxKeyChars: number;
  /** EngineDeps.beforeWrite: the park is this advance's write. */
  beforeWrite?: (instanceId: string) => Promise<void>;
  /** Asks for a grant pass soon (chore.ts). */
  flowPass: () => void;
}

/**
 * The gate of one leased advance of a definition with flow control: its needs (the run-advance
 * frees them after its write), and either a key that failed to evaluate (the instance fails with
 * it), the outcome of parking it (it waits; nothing else runs), or neither (it runs).
 */
export async function gateAdvance(
  deps: GateDeps,
  def: CompiledDefinition,
  row: LeasedRow,
  state: InstanceState,
  environment: InMemoryBasis,
): Promise<{ needs: FlowNeed[]; failure?: TaskFailure; parked?: WriteOutcome }> {
  let needs: FlowNeed[];
  try {
    needs = flowNeeds(def, row, state, {
      config: environment.config,
      now: environment.now,
      evalLimits: environment.evalLimits,
      maxKeyChars: deps.maxKeyChars,
    });
  } catch (error) {
    return { needs: [], failure: failureOf(error, environment.limitFlag) };
  }
  const missing = await firstMissing(deps.db, row.id, needs);
  if (missing === undefined) return { needs };
  if (deps.beforeWrite !== undefined) await deps.beforeWrite(row.id);
  const parked = await parkForFlow(deps.db, deps.clock, deps.workerId, row, missing);
  deps.flowPass();
  deps.metrics.flowWaiting(missing.reason);
  return { needs, parked: parked.parked ? { applied: true, status: parked.status, wakeAt: null } : { applied: false } };
}

/** Whether a held slot row stands for `need`: the same visit (and attempt, for a permit). */
function holds(row: { scope: string; task_epoch: unknown; attempt: unknown }, need: FlowNeed): boolean {
  return (
    row.scope === need.scope &&
    (Number(row.task_epoch) === -1 || Number(row.task_epoch) === need.taskEpoch) &&
    (Number(row.attempt) === -1 || Number(row.attempt) === need.attempt)
  );
}

/** The first of `needs` this instance does not hold, or undefined when it holds them all. */
export async function firstMissing(
  db: Db,
  instanceId: string,
  needs: readonly FlowNeed[],
): Promise<FlowNeed | undefined> {
  if (needs.length === 0) return undefined;
  // Shared with the other gates, exclusive against a grant pass: a pass deleting a slot whose
  // holder left its visit (and was then revived by a retry) commits before this read, or after it.
  const held = await inTransaction(db, async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock_shared(${FLOW_LOCK_CLASS}, 0)`);
    const result = await tx.execute(sql`
      SELECT scope, task_epoch, attempt FROM flow_slots
      WHERE instance_id = ${instanceId} AND scope = ANY(${sqlTextArray(needs.map((n) => n.scope))})`);
    return rowsOf<{ scope: string; task_epoch: unknown; attempt: unknown }>(result);
  });
  return needs.find((need) => !held.some((row) => holds(row, need)));
}

/**
 * Parks the leased `row` to wait for `need`, in one transaction fenced by its lease: the row
 * keeps its status and task, loses its lease and its wake_at, and its wait is queued (a wait of
 * the same visit keeps its place). A row a pause or cancel is pending on (`pausing`,
 * `cancelling`) has its lease expire at once instead, so the next claim round lands it
 * `paused`/`cancelled` (trees/lifecycle.ts finaliseAbandoned). Answers whether it was parked
 * (false: the lease moved on, nothing was written).
 */
export async function parkForFlow(
  db: Db,
  clock: Clock,
  workerId: string,
  row: LeasedRow,
  need: FlowNeed,
): Promise<{ parked: boolean; status?: string }> {
  return inTransaction(db, async (tx) => {
    const now = clock.now();
    const result = await tx.execute(sql`
      UPDATE instances SET lease_owner = NULL,
        lease_expires_at = CASE WHEN status = 'running' THEN NULL ELSE ${now}::bigint END,
        wake_at = NULL, attempts = 0, updated_at = ${now}
      WHERE id = ${row.id} AND lease_epoch = ${row.leaseEpoch} AND lease_owner = ${workerId}
        AND status IN ('running', 'pausing', 'cancelling')
      RETURNING status`);
    const parked = rowsOf<{ status: string }>(result);
    if (parked.length === 0) return { parked: false };
    await tx.execute(sql`
      INSERT INTO flow_waits (scope, key, instance_id, reason, task_epoch, attempt, lim, per_ms, since)
      VALUES (${need.scope}, ${need.key}, ${row.id}, ${need.reason}, ${row.taskEpoch}, ${row.retryCount}, ${need.limit},
              ${need.perMs}, ${now})
      ON CONFLICT (scope, instance_id) DO UPDATE SET key = EXCLUDED.key, reason = EXCLUDED.reason,
        lim = EXCLUDED.lim, per_ms = EXCLUDED.per_ms, task_epoch = EXCLUDED.task_epoch, attempt = EXCLUDED.attempt,
        since = CASE WHEN flow_waits.task_epoch = EXCLUDED.task_epoch AND flow_waits.attempt = EXCLUDED.attempt
                     THEN flow_waits.since ELSE EXCLUDED.since END`);
    const what = need.reason === "concurrency" ? `a slot of ${need.scope}` : `a start permit of ${need.scope}`;
    await appendLogs(tx, clock, [
      {
        instanceId: row.id,
        rootId: row.rootId,
        level: "info",
        event: "flow.waiting",
        message: `waiting for ${what} with key "${need.key}" (limit ${need.limit}${need.reason === "rate_limit" ? ` per ${need.perMs} ms` : ""})`,
        task: row.task,
        data: { reason: need.reason, scope: need.scope, key: need.key, limit: need.limit },
      },
    ]);
    return { parked: true, status: parked[0].status };
  });
}
