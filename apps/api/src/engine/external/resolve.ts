import { type Json, stringifyJson } from "@baton/expr";
import type { Clock } from "../../clock.js";
import { type Db, queryRows } from "../../storage/db.js";
import { intArray, textArray } from "../../storage/sql-arrays.js";
import { logRow } from "../audit-log.js";
import { type LeasedRow, leasedRowOf } from "../leases.js";
import { LEASE_MS } from "../statuses.js";

// Resolve as ONE statement (docs/engine.md "Resolving an external task"): the fence, the
// outcome, the claim row's removal, the external.resolved log line and — when this process
// carries the instance on — its lease, all in one autocommit write. What it fences on is
// exactly what the refusals of resolve are about, so when it changes nothing the caller reads
// the claim again to say why (or falls back to the locking transaction, see outcomes.ts).

/** What a claim token stands for: fixed when the claim is made (its task visit and claim counter). */
export interface ClaimFacts {
  instanceId: string;
  rootId: string;
  process: string;
  version: number;
  task: string;
  taskEpoch: number;
  claimEpoch: number;
  /**
   * The parked row as the claim (or the read of the claim) saw it, unless too large to keep: what
   * the one-version resolve computes the advance from (resolve-advanced.ts). Unlike the facts it
   * may change after the claim (a pause, an upgrade); that write's fence compares it with the row.
   */
  parked?: ParkedRow;
}

/** What the advance reads of a parked row besides the claim's facts. */
export interface ParkedRow {
  stateText: string;
  retryCount: number;
  status: string;
  parentId: string | null;
  parentTaskEpoch: number;
  traceParent: string | null;
}

/** A parked row from a statement that returns state, retry_count, status, parent_id, parent_task_epoch, trace_parent. */
export function parkedRowOf(r: Record<string, unknown>): ParkedRow {
  return {
    stateText: String(r.state),
    retryCount: Number(r.retry_count),
    status: String(r.status),
    parentId: r.parent_id === null || r.parent_id === undefined ? null : String(r.parent_id),
    parentTaskEpoch: Number(r.parent_task_epoch ?? 0),
    traceParent: r.trace_parent === null || r.trace_parent === undefined ? null : String(r.trace_parent),
  };
}

export interface ResolveWrite {
  hash: string;
  facts: ClaimFacts;
  /** The validated outcome as stored under state._outcome: `{task_epoch, result}` or `{task_epoch, error}`. */
  outcome: string;
  message: string;
  data: Record<string, Json>;
}

// One statement for one resolve or a batch (resolve-batch, docs/api.md "Extensions"): the
// writes come as one row of scalars, or as parallel arrays with one element per claim, at most
// one per instance (the caller
// splits repeats of an instance into later statements: two elements updating one row would let
// the UPDATE pick either outcome).
// $1 hashes, $2 instances, $3 task_epochs, $4 claim_epochs, $5 processes, $6 versions, $7 tasks,
// $8 outcome texts, $9 log ids, $10 messages, $11 log data texts; $12 now, $13 carrier (null:
// none), $14 lease until, $15 actor.
//
// The splice puts `_outcome` first in the state object text; the fence requires that the
// state has no `_outcome` yet — read from the text, never by casting the state to jsonb, which
// refuses a string holding U+0000 (written `\u0000`) and would wedge that instance (a parked visit never does: the advance that consumed the last
// one removed it), so the text stays an object with unique keys.
// Every row is reached through its primary key, one claim at a time: the lookups are a LATERAL
// subquery per element (a subquery with FOR UPDATE is never flattened into the outer join, so
// the planner cannot hash external_waits against the array), and process and version are
// compared with IS NOT DISTINCT FROM, which no index serves. The driver's prepared statement
// runs on a generic plan: a plain join would hash a sequential scan of external_waits, and a
// plain `i.process = …` would pick instances_process_idx and filter every instance of the
// process, so keep both forms.
// Locks external_waits before instances, the order claim uses (claim locks its picked waits,
// then updates their instances): a resolve racing a claim of the same row cannot deadlock.
// Two texts of the one statement, differing only in where `x` comes from: a single resolve
// passes scalars, so its prepared statement keeps one generic plan (an unnest of an array
// parameter is estimated at 10 rows, which made PostgreSQL re-plan every single resolve: 0.38 ms
// of planning per call against 0.22 ms of execution); a batch passes arrays and is planned per
// call, once for all its items.
const resolveStatement = (source: string) => `
WITH x AS (${source}),
target AS (
  SELECT l.id, x.outcome, x.task, x.log_id, x.message, x.data FROM x
  CROSS JOIN LATERAL (
    SELECT i.id FROM external_claims c, external_waits w, instances i
    WHERE c.token_hash = x.hash AND c.instance_id = x.instance_id AND c.task_epoch = x.task_epoch
      AND c.claim_epoch = x.claim_epoch
      AND w.instance_id = x.instance_id AND w.task_epoch = x.task_epoch AND w.claim_epoch = x.claim_epoch
      AND w.task = x.task AND w.claim_expires_at > $12::bigint AND c.created_at >= w.waiting_since
      AND i.id = x.instance_id AND i.task_epoch = x.task_epoch AND i.phase = 'external'
      AND i.process IS NOT DISTINCT FROM x.process AND i.version IS NOT DISTINCT FROM x.version
      AND i.status IN ('running', 'pausing', 'paused', 'failing')
      AND left(i.state, 2) = '{"' AND left(i.state, 12) <> '{"_outcome":'
    FOR UPDATE OF w, i
  ) l
),
upd AS (
  UPDATE instances AS i
  SET state = '{"_outcome":' || target.outcome || ',' || substr(i.state, 2),
      phase = NULL, requested = NULL, updated_at = $12::bigint, lease_epoch = i.lease_epoch + 1,
      status = CASE WHEN i.status = 'pausing' THEN 'paused' ELSE i.status END,
      lease_owner = CASE WHEN i.status = 'running' THEN $13::text END,
      attempts = CASE WHEN i.status = 'running' AND $13::text IS NOT NULL THEN 1 ELSE i.attempts END,
      lease_expires_at = CASE WHEN i.status = 'running' AND $13::text IS NOT NULL THEN $14::bigint END,
      wake_at = CASE WHEN i.status = 'running' AND $13::text IS NOT NULL THEN $14::bigint ELSE $12::bigint END
  FROM target WHERE i.id = target.id
  RETURNING i.id, i.root_id, i.process, i.version, i.task, i.state, i.retry_count, i.task_epoch, i.lease_epoch,
            i.parent_id, i.parent_task_epoch, i.status, i.lease_owner, i.trace_parent,
            target.log_id, target.message, target.data, target.task AS w_task
),
dropped AS (
  DELETE FROM external_waits AS w USING upd WHERE w.instance_id = upd.id
),
logged AS (
  INSERT INTO logs (id, instance_id, root_id, level, event, message, task, actor, data, created_at)
  SELECT upd.log_id, upd.id, upd.root_id, 'info', 'external.resolved', upd.message, upd.w_task, $15, upd.data, $12::bigint
  FROM upd
)
SELECT id, root_id, process, version, task, state, retry_count, task_epoch, lease_epoch, parent_id, parent_task_epoch,
       status, lease_owner, trace_parent FROM upd`;

const RESOLVE_ONE = resolveStatement(`
  SELECT $1::text AS hash, $2::text AS instance_id, $3::int AS task_epoch, $4::int AS claim_epoch, $5::text AS process,
         $6::int AS version, $7::text AS task, $8::text AS outcome, $9::text AS log_id, $10::text AS message,
         $11::text AS data`);
const RESOLVE_MANY = resolveStatement(`
  SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::int[], $7::text[], $8::text[],
                       $9::text[], $10::text[], $11::text[])
    AS x(hash, instance_id, task_epoch, claim_epoch, process, version, task, outcome, log_id, message, data)`);

export interface ResolvedRow {
  /** The row as the statement left it, leased to the carrier when `carried`. */
  row: LeasedRow;
  status: string;
  carried: boolean;
}

/**
 * Resolves `writes` (at most one per instance) in one statement; the rows it resolved by
 * instance id. A write missing from the map was fenced out: its claim is not live, or the row
 * is not as its facts say. `carrier` takes the lease of every running row it resolves.
 */
export async function writeResolves(
  db: Db,
  clock: Clock,
  writes: readonly ResolveWrite[],
  actor: string | null,
  carrier: string | null,
): Promise<Map<string, ResolvedRow>> {
  const now = clock.now();
  const logs = writes.map((w) =>
    logRow(
      {
        instanceId: w.facts.instanceId,
        rootId: w.facts.rootId,
        level: "info",
        event: "external.resolved",
        message: w.message,
        task: w.facts.task,
        actor,
        data: w.data,
      },
      now,
    ),
  );
  const columns: unknown[][] = [
    writes.map((w) => w.hash),
    writes.map((w) => w.facts.instanceId),
    writes.map((w) => w.facts.taskEpoch),
    writes.map((w) => w.facts.claimEpoch),
    writes.map((w) => w.facts.process),
    writes.map((w) => w.facts.version),
    writes.map((w) => w.facts.task),
    writes.map((w) => w.outcome),
    logs.map((l) => l.id),
    logs.map((l) => l.message),
    logs.map((l) => l.data),
  ];
  const ints = new Set([2, 3, 5]);
  const one = writes.length === 1;
  const rows = await queryRows<Record<string, unknown>>(db, one ? RESOLVE_ONE : RESOLVE_MANY, [
    ...columns.map((column, i) =>
      one ? column[0] : ints.has(i) ? intArray(column as number[]) : textArray(column as (string | null)[]),
    ),
    now,
    carrier,
    now + LEASE_MS,
    logs[0]?.actor ?? null,
  ]);
  const out = new Map<string, ResolvedRow>();
  for (const r of rows) {
    // The carried lease counts as an attempt (docs/limits.md#poison-instances); the statement set it.
    const row: LeasedRow = { ...leasedRowOf(r), attempts: 1 };
    out.set(row.id, { row, status: String(r.status), carried: carrier !== null && r.lease_owner === carrier });
  }
  return out;
}

/** Null when the fence let nothing through: the claim is not live, or the row is not as `w.facts` says. */
export async function writeResolve(
  db: Db,
  clock: Clock,
  w: ResolveWrite,
  actor: string | null,
  carrier: string | null,
): Promise<ResolvedRow | null> {
  return (await writeResolves(db, clock, [w], actor, carrier)).get(w.facts.instanceId) ?? null;
}

/** The outcome as stored under state._outcome, tagged with its visit (read back by advance/tasks/wait.ts). */
export function outcomeText(taskEpoch: number, outcome: { [key: string]: Json }): string {
  return stringifyJson({ task_epoch: taskEpoch, ...outcome });
}
