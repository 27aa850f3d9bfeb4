import type { EngineForRequests } from "../carry.js";
import { type Db, queryRows } from "../../storage/db.js";
import type { InstanceInsert } from "../../storage/schema/index.js";
import { storableJson } from "../../storage/text.js";
import { logRow } from "../audit-log.js";
import { advancedColumns, instanceRecord, recordShape } from "../instance-columns.js";
import { type LeasedRow, leasedRow } from "../leases.js";
import { LEASE_MS } from "../statuses.js";
import { startKeyUpsert } from "./start-keys.js";
import { insertVisitsFrom, type VisitRow, visitRows } from "../visits/journal-rows.js";

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
// The columns a start writes, read from one JSON record (instance-columns.ts): the fresh row
// (fresh-row.ts), with the lease when carried, or as its first advance left it.
const ROW_KEYS = [
  "id",
  "rootId",
  "parentId",
  "spawnTask",
  "spawnKey",
  "parentTaskEpoch",
  "process",
  "version",
  "status",
  "phase",
  "task",
  "state",
  "taskEpoch",
  "leaseEpoch",
  "wakeAt",
  "createdAt",
  "updatedAt",
  "leaseOwner",
  "leaseExpiresAt",
  "key",
  "attempts",
  "retryCount",
  "errorCode",
  "errorMessage",
  "output",
  "treeSize",
  "traceParent",
] as const satisfies ReadonlyArray<keyof InstanceInsert>;
const ROW = recordShape(ROW_KEYS);

// $1 the row, $2 pinned, $3 its log lines (instance.started first), $4–$7 the key: scope,
// key, request hash, and the created_at at or before which a held key has expired; $8 the visit
// journal rows of its first advance (visits/journal-rows.ts).
const START = `
WITH r AS (SELECT * FROM jsonb_to_record($1::jsonb) AS r(${ROW.definitions})),
fence AS (
  SELECT 1 AS ok FROM r
  WHERE $2::boolean OR NOT EXISTS (SELECT 1 FROM definitions d WHERE d.name = r.process AND d.version > r.version)
),
claimed AS (${startKeyUpsert("SELECT $4::text, $5::text, $6::text, r.id, r.created_at FROM r, fence WHERE $4::text IS NOT NULL", "$7::bigint")}),
ins AS (
  INSERT INTO instances (${ROW.names})
  SELECT ${ROW.names} FROM r, fence WHERE $4::text IS NULL OR EXISTS (SELECT 1 FROM claimed)
  RETURNING id, root_id, created_at
),
logged AS (
  INSERT INTO logs (id, instance_id, root_id, level, event, message, task, actor, data, created_at)
  SELECT l.id, ins.id, ins.root_id, l.level, l.event, l.message, l.task, l.actor, l.data, ins.created_at
  FROM ins, jsonb_to_recordset($3::jsonb) AS l(id text, level text, event text, message text, task text, actor text, data text)
),
visited AS (${insertVisitsFrom("$8", "ins")})
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
export type StartInserted = { started: true; leased?: LeasedRow } | { started: false; why: "fenced" | "key_taken" };

type LogRow = ReturnType<typeof logRow>;

/**
 * Inserts a root and its log lines (instance.started first) in one statement, taking `key`
 * with them when given; with `carrier`, leased to it as a claim would (leases.ts: epoch 1,
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
  visits: readonly VisitRow[] = [],
): Promise<StartInserted> {
  const now = row.createdAt;
  // The carried lease is an attempt like a claim (docs/limits.md#poison-instances): a process
  // that dies in the first advance has used one.
  const leased: InstanceInsert =
    carrier === null
      ? { ...row, attempts: 0 }
      : {
          ...row,
          leaseOwner: carrier,
          leaseExpiresAt: now + LEASE_MS,
          wakeAt: now + LEASE_MS,
          leaseEpoch: 1,
          attempts: 1,
        };
  const [inserted] = await queryRows<{ id: string | null; fence_held: boolean }>(db, START, [
    storableJson(instanceRecord(leased, ROW_KEYS)),
    pinned,
    storableJson(logs),
    key?.scope ?? null,
    key?.key ?? null,
    key?.hash ?? null,
    key?.expiredAtOrBefore ?? null,
    storableJson(visits),
  ]);
  if (inserted?.id == null) return { started: false, why: inserted?.fence_held ? "key_taken" : "fenced" };
  if (carrier === null) return { started: true };
  return { started: true, leased: asLeased(leased) };
}

/** A fresh root as a claim of it reads (its first attempt). */
function asLeased(row: InstanceInsert): LeasedRow {
  return leasedRow({
    id: row.id,
    rootId: row.rootId ?? row.id,
    process: row.process,
    version: row.version,
    task: row.task,
    stateText: row.state,
    retryCount: 0,
    taskEpoch: row.taskEpoch ?? 1,
    leaseEpoch: row.leaseEpoch ?? 1,
    traceParent: row.traceParent ?? null,
  });
}

/** A fresh root as its first advance leaves it, to be inserted so (docs/instances.md "Starting"). */
export interface AdvancedStart {
  row: InstanceInsert;
  /** The advance's log lines, after the instance.started line. */
  logs: LogRow[];
  /** The visit journal rows of its task entries. */
  visits: VisitRow[];
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
  engine: Pick<EngineForRequests, "advanceInMemory">,
  row: InstanceInsert,
  now: () => number,
): Promise<AdvancedStart | undefined> {
  const advanced = await engine.advanceInMemory(asLeased(row));
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
    // The columns the advance's write sets, on the fresh row: never leased.
    row: { ...row, ...advancedColumns(result, advanced) },
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
    visits: visitRows(row.id, result.visits, at),
    report: advanced.report,
  };
}
