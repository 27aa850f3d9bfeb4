import { type Json, stringifyJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import type { Clock } from "../storage/clock.js";
import { type Db, rowsOf } from "../storage/db.js";
import type { AdvanceResult } from "./advance.js";
import { sqlTextArray } from "./claim.js";
import type { ClaimedRow } from "./claim.js";
import type { InstanceState } from "./instance-state.js";
import { insertLogBatch } from "./log-batch.js";
import type { LogEntry } from "./logs.js";
import { externalize } from "./objects.js";
import { writeWaitChanges } from "./wait-rows.js";

/** One finished advance waiting for its fenced write. */
export interface PendingWrite {
  claim: ClaimedRow;
  /** The state as stored when claimed (placeholders kept), so unchanged big values are not re-stored. */
  storedState: InstanceState;
  result: AdvanceResult;
}

export interface WriteOutcome {
  /** false: the fence moved (another worker or an operator took the row); nothing was written. */
  applied: boolean;
  status?: string;
  wakeAt?: number | null;
}

// Statuses a leased row can have when its advance lands; anything else was decided by someone else.
const WRITABLE = new Set(["running", "pausing", "cancelling"]);

/**
 * Writes many advances in the caller's transaction, each fenced by its claimed lease_epoch.
 * Locks the rows first so a concurrent operator verb is either fully before this write (its
 * `requested` is applied here) or fully after it (it sees the advance's result).
 */
export async function writeAdvances(tx: Db, clock: Clock, thresholdBytes: number, writes: readonly PendingWrite[]): Promise<WriteOutcome[]> {
  if (writes.length === 0) return [];
  const now = clock.now();
  const locked = await tx.execute(sql`
    SELECT id, status, requested, lease_epoch FROM instances
    WHERE id = ANY(${sqlTextArray(writes.map((w) => w.claim.id))})
    FOR UPDATE`);
  const current = rowsOf<{ id: string; status: string; requested: string | null; lease_epoch: number }>(locked).map((r) => ({
    id: r.id,
    status: r.status,
    requested: r.requested,
    leaseEpoch: Number(r.lease_epoch),
  }));
  const byId = new Map(current.map((row) => [row.id, row]));
  const logs: LogEntry[] = [];
  const outcomes: WriteOutcome[] = [];
  const records: Array<Record<string, string | number | null>> = [];
  const landedResults: Array<{ instanceId: string; result: AdvanceResult }> = [];
  for (const { claim, storedState, result } of writes) {
    const row = byId.get(claim.id);
    if (row === undefined || row.leaseEpoch !== claim.leaseEpoch || !WRITABLE.has(row.status)) {
      outcomes.push({ applied: false });
      continue;
    }
    let status: string = result.status;
    let wakeAt = result.wakeAt;
    const landed: LogEntry[] = [];
    if (status === "running" && row.requested === "cancel") {
      status = "cancelled";
      wakeAt = null;
      landed.push(entry(claim, "info", "instance.cancelled", `cancelled at the boundary of task "${result.task}"`, result.task));
    } else if (status === "running" && row.requested === "pause") {
      status = "paused";
      landed.push(entry(claim, "info", "instance.paused", `paused at the boundary of task "${result.task}"`, result.task));
    }
    const state = await externalize(tx, clock, toStore(storedState, result), thresholdBytes);
    const output = result.output === undefined ? null : stringifyJson(await externalize(tx, clock, result.output, thresholdBytes));
    records.push({
      id: claim.id,
      lease_epoch: claim.leaseEpoch,
      status,
      task: result.task,
      task_epoch: result.taskEpoch,
      retry_count: result.retryCount,
      state: stringifyJson(state),
      error_code: result.errorCode,
      error_message: result.errorMessage,
      output,
      wake_at: wakeAt,
      phase: result.phase ?? null,
    });
    landedResults.push({ instanceId: claim.id, result });
    for (const log of result.logs) logs.push(entry(claim, log.level, log.event, log.message, log.task ?? null, log.data ?? null));
    logs.push(...landed);
    outcomes.push({ applied: true, status, wakeAt });
  }
  if (records.length > 0) {
    // One statement for the whole batch; each row still fenced by its own lease_epoch (the rows
    // are locked above, so the fence cannot move in between).
    const updated = await tx.execute(sql`
      UPDATE instances AS i
      SET status = x.status, task = x.task, task_epoch = x.task_epoch, retry_count = x.retry_count, state = x.state,
          error_code = x.error_code, error_message = x.error_message, output = x.output, wake_at = x.wake_at, phase = x.phase,
          lease_owner = NULL, lease_expires_at = NULL, requested = NULL, updated_at = ${now}
      FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS x(
        id text, lease_epoch integer, status text, task text, task_epoch integer, retry_count integer, state text,
        error_code text, error_message text, output text, wake_at bigint, phase text)
      WHERE i.id = x.id AND i.lease_epoch = x.lease_epoch
      RETURNING i.id`);
    const count = rowsOf(updated).length;
    if (count !== records.length) throw new Error(`fenced batch write changed ${count} of ${records.length} locked rows`);
    await writeWaitChanges(tx, landedResults);
  }
  await insertLogBatch(tx, clock, logs);
  return outcomes;
}

function entry(
  claim: ClaimedRow,
  level: LogEntry["level"],
  event: string,
  message: string,
  task: string | null,
  data: Record<string, Json> | null = null,
): LogEntry {
  return { instanceId: claim.id, rootId: claim.rootId, level, event, message, task, data };
}

// Keys an advance rewrites on a task visit (wait-task.ts): always stored as the advance left them.
const PER_VISIT_KEYS = new Set(["_error", "_wait", "_outcome"]);

/** The new state with values this advance did not write kept in their stored (placeholder) form. */
function toStore(stored: InstanceState, result: AdvanceResult): Json {
  const next = result.state;
  const outputs: { [task: string]: Json } = {};
  for (const [task, value] of Object.entries(next.outputs)) {
    outputs[task] = result.written.has(task) || !(task in stored.outputs) ? value : stored.outputs[task];
  }
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(next)) {
    if (value !== undefined) out[key] = key in stored && stored[key] !== undefined && !PER_VISIT_KEYS.has(key) ? (stored[key] as Json) : value;
  }
  out.outputs = outputs;
  if (next._error !== undefined) out._error = next._error;
  else delete out._error;
  return out;
}
