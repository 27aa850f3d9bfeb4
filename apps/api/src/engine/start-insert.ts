import type { EngineHandle } from "../services.js";
import { type Db, queryRows } from "../storage/db.js";
import type { InstanceInsert } from "../storage/schema/index.js";
import { storableJson } from "../storage/text.js";
import { logRow } from "./audit-log.js";
import type { ClaimedRow } from "./pump/claim.js";
import { LEASE_MS } from "./statuses.js";

// A start is ONE statement in the common case (docs/engine.md "Starting an instance"): the row
// and its instance.started line together, fenced on the definition it was validated against
// still being the latest when the caller named no version, with its Idempotency-Key taken
// when it has one, and — when this process runs the first advance itself (engine.carry) —
// with the lease already taken. A start whose input is large enough to be stored as objects
// takes the transaction in start.ts instead. A start whose first advance needs no I/O is
// inserted already advanced (firstAdvanceInMemory below): the row as that advance leaves it,
// with the advance's log lines after instance.started, and no lease.
//
// The key row is inserted only when the fence holds, and the instance only when the key was
// taken (or there is none), so neither is ever written without the other. A live key held by
// a concurrent start makes this INSERT wait for that start's commit (the unique index), then
// take nothing: no instance, and the caller answers what that start made.
const START = `
WITH fence AS (
  SELECT 1 AS ok WHERE $20::boolean OR NOT EXISTS (SELECT 1 FROM definitions WHERE name = $7 AND version > $8::int)
),
claimed AS (
  INSERT INTO start_requests (scope, key, request_hash, instance_id, created_at)
  SELECT $30::text, $31::text, $32::text, $1, $16::bigint FROM fence WHERE $30::text IS NOT NULL
  ON CONFLICT (scope, key) DO UPDATE
    SET request_hash = excluded.request_hash, instance_id = excluded.instance_id, created_at = excluded.created_at
    WHERE start_requests.created_at <= $33::bigint
  RETURNING instance_id
),
ins AS (
  INSERT INTO instances (id, root_id, parent_id, spawn_task, spawn_key, parent_task_epoch, process, version, status, phase,
                         task, state, task_epoch, lease_epoch, wake_at, created_at, updated_at, lease_owner, lease_expires_at, key,
                         attempts, retry_count, error_code, error_message, output, tree_size)
  SELECT $1, $2, $3, $4, $5, $6::int, $7, $8::int, $9, $10, $11, $12, $13::int, $14::int, $15::bigint, $16::bigint, $17::bigint,
         $18, $19::bigint, $28, $29::int, $34::int, $35, $36, $37, $39::int
  FROM fence WHERE $30::text IS NULL OR EXISTS (SELECT 1 FROM claimed)
  RETURNING id, root_id
),
logged AS (
  INSERT INTO logs (id, instance_id, root_id, level, event, message, task, actor, data, created_at)
  SELECT $21, ins.id, ins.root_id, $22, $23, $24, $25, $26, $27, $16::bigint FROM ins
  UNION ALL
  SELECT l.id, ins.id, ins.root_id, l.level, l.event, l.message, l.task, l.actor, l.data, $16::bigint
  FROM ins, jsonb_to_recordset($38::jsonb) AS l(id text, level text, event text, message text, task text, actor text, data text)
)
SELECT (SELECT id FROM ins) AS id, EXISTS (SELECT 1 FROM fence) AS fence_held`;

/** An Idempotency-Key to take with the start: its row names the new instance unless a live one exists. */
export interface StartKeyClaim {
  scope: string;
  key: string;
  hash: string;
  /** A row created at or before this (ms) has expired and is taken over. */
  expiredAtOrBefore: number;
}

/** What the statement did: started (with the lease when carried), or nothing and why. */
export type StartInserted = { started: true; leased?: ClaimedRow } | { started: false; why: "fenced" | "key_taken" };

type LogRow = ReturnType<typeof logRow>;

/**
 * Inserts a root and its log lines (instance.started first) in one statement, taking `key`
 * with them when given; with `carrier`, leased to it as a claim would (pump/claim.ts: epoch 1,
 * wake_at = the lease expiry), and `leased` is the row as the engine runs it. Nothing is
 * written when the fence refused (`fenced`: a newer version than the one validated against
 * exists; never when `pinned`) or when another start holds the key live (`key_taken`).
 */
export async function insertStarted(
  db: Db,
  row: InstanceInsert,
  logs: readonly [LogRow, ...LogRow[]],
  pinned: boolean,
  carrier: string | null,
  key?: StartKeyClaim,
): Promise<StartInserted> {
  const now = row.createdAt;
  const [log, ...more] = logs;
  const leased: InstanceInsert =
    carrier === null
      ? row
      : { ...row, leaseOwner: carrier, leaseExpiresAt: now + LEASE_MS, wakeAt: now + LEASE_MS, leaseEpoch: 1 };
  const [inserted] = await queryRows<{ id: string | null; fence_held: boolean }>(db, START, [
    leased.id,
    leased.rootId,
    leased.parentId,
    leased.spawnTask,
    leased.spawnKey,
    leased.parentTaskEpoch,
    leased.process,
    leased.version,
    leased.status,
    leased.phase,
    leased.task,
    leased.state,
    leased.taskEpoch,
    leased.leaseEpoch,
    leased.wakeAt,
    leased.createdAt,
    leased.updatedAt,
    leased.leaseOwner ?? null,
    leased.leaseExpiresAt ?? null,
    pinned,
    log.id,
    log.level,
    log.event,
    log.message,
    log.task,
    log.actor,
    log.data,
    leased.key ?? null,
    // The carried lease is an attempt like a claim (docs/limits.md#poison-instances): a process
    // that dies in the first advance has used one.
    carrier === null ? 0 : 1,
    key?.scope ?? null,
    key?.key ?? null,
    key?.hash ?? null,
    key?.expiredAtOrBefore ?? null,
    leased.retryCount ?? 0,
    leased.errorCode ?? null,
    leased.errorMessage ?? null,
    leased.output ?? null,
    storableJson(more),
    leased.treeSize ?? null,
  ]);
  if (inserted?.id == null) return { started: false, why: inserted?.fence_held ? "key_taken" : "fenced" };
  if (carrier === null) return { started: true };
  return { started: true, leased: asClaimed(leased) };
}

/** A fresh root as a claim of it reads (its first attempt). */
function asClaimed(row: InstanceInsert): ClaimedRow {
  return {
    id: row.id,
    rootId: row.rootId ?? row.id,
    process: row.process,
    version: row.version,
    task: row.task,
    stateText: row.state,
    retryCount: 0,
    taskEpoch: row.taskEpoch ?? 1,
    leaseEpoch: row.leaseEpoch ?? 1,
    reclaimedFrom: null,
    parentId: null,
    parentTaskEpoch: 0,
    attempts: 1,
  };
}

/** A fresh root as its first advance leaves it, to be inserted so (docs/instances.md "Starting"). */
export interface AdvancedStart {
  row: InstanceInsert;
  /** The advance's log lines, after the instance.started line. */
  logs: LogRow[];
  /** Counts the advance in the engine's metrics once the insert's outcome is known. */
  report(applied: boolean): void;
}

/**
 * The fresh root `row` after its first advance, computed in memory (docs/engine.md "One advance
 * in memory"), when the row alone holds the result: the instance ended (completed, failed,
 * raised) or parked on a timer or with no wake-up. Undefined — insert the fresh row and let the
 * engine run the advance — when it needs I/O (a fetch, a child, the signal buffer, objects),
 * when it parks on an external task (its wait row is written in a transaction, pump/wait-rows.ts)
 * or when it is due again at once (the engine runs the next advance under a lease).
 */
export async function firstAdvanceInMemory(
  engine: EngineHandle,
  row: InstanceInsert,
  now: () => number,
): Promise<AdvancedStart | undefined> {
  const advanced = await engine.advanceInMemory(asClaimed(row));
  if (advanced === undefined) return undefined;
  const { result } = advanced;
  if (result.status === "running") {
    if (result.externalWait !== undefined || result.consumedSignal !== undefined || result.spawns !== undefined)
      return undefined;
    if (result.wakeAt !== null && result.wakeAt <= now()) return undefined;
  }
  const at = row.createdAt;
  const entry = { instanceId: row.id, rootId: row.rootId ?? row.id };
  return {
    // The columns the advance's write sets (pump/commit.ts), on the fresh row: never leased.
    row: {
      ...row,
      status: result.status,
      phase: result.phase ?? null,
      task: result.task,
      taskEpoch: result.taskEpoch,
      retryCount: result.retryCount,
      state: advanced.state,
      output: advanced.output,
      errorCode: result.errorCode,
      errorMessage: result.errorMessage,
      wakeAt: result.wakeAt,
    },
    logs: result.logs.map((line) =>
      logRow(
        {
          ...entry,
          level: line.level,
          event: line.event,
          message: line.message,
          task: line.task ?? null,
          data: line.data ?? null,
        },
        at,
      ),
    ),
    report: advanced.report,
  };
}
