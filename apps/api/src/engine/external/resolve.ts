import { type Json, stringifyJson } from "@baton/expr";
import type { Clock } from "../../storage/clock.js";
import { type Db, queryRows } from "../../storage/db.js";
import { logRow } from "../audit-log.js";
import type { ClaimedRow } from "../pump/claim.js";
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
}

export interface ResolveWrite {
  hash: string;
  facts: ClaimFacts;
  /** The validated outcome as stored under state._outcome: `{task_epoch, result}` or `{task_epoch, error}`. */
  outcome: string;
  message: string;
  actor: string | null;
  data: Record<string, Json>;
  /** This worker's id when it takes the lease to run the next advance itself; null leaves the row due for any pump. */
  carrier: string | null;
}

// $1 hash, $2 instance, $3 task_epoch, $4 claim_epoch, $5 process, $6 version, $7 task, $8 now,
// $9 outcome text, $10 carrier (null: none), $11 lease until, $12 log id, $13 message, $14 actor, $15 data.
//
// The splice puts `_outcome` first in the state object text; the fence requires that the
// state has no `_outcome` yet — read from the text, never by casting the state to jsonb, which
// refuses a string holding U+0000 (written `\u0000`) and would wedge that instance (a parked visit never does: the advance that consumed the last
// one removed it), so the text stays an object with unique keys.
// The instance is reached only through its primary key (i.id = c.instance_id = $2): process and
// version are compared with IS NOT DISTINCT FROM, which no index serves, because the driver's
// prepared statement runs on a generic plan, and with a plain `i.process = $5` that plan picked
// instances_process_idx and filtered every instance of the process (5,000 rows per resolve in
// `pnpm bench`; docs/performance.md, session 6).
// Locks external_waits before instances, the order claim uses (claim locks its picked waits,
// then updates their instances): a resolve racing a claim of the same row cannot deadlock.
const RESOLVE = `
WITH target AS (
  SELECT i.id FROM external_claims c
  JOIN external_waits w ON w.instance_id = c.instance_id
  JOIN instances i ON i.id = c.instance_id
  WHERE c.token_hash = $1 AND c.instance_id = $2 AND c.task_epoch = $3::int AND c.claim_epoch = $4::int
    AND w.task_epoch = $3::int AND w.claim_epoch = $4::int AND w.task = $7 AND w.claim_expires_at > $8::bigint
    AND c.created_at >= w.waiting_since
    AND i.task_epoch = $3::int AND i.phase = 'external'
    AND i.process IS NOT DISTINCT FROM $5 AND i.version IS NOT DISTINCT FROM $6::int
    AND i.status IN ('running', 'pausing', 'paused', 'failing')
    AND left(i.state, 2) = '{"' AND left(i.state, 12) <> '{"_outcome":'
  FOR UPDATE OF w, i
),
upd AS (
  UPDATE instances AS i
  SET state = '{"_outcome":' || $9::text || ',' || substr(i.state, 2),
      phase = NULL, requested = NULL, updated_at = $8::bigint, lease_epoch = i.lease_epoch + 1,
      status = CASE WHEN i.status = 'pausing' THEN 'paused' ELSE i.status END,
      lease_owner = CASE WHEN i.status = 'running' THEN $10::text END,
      attempts = CASE WHEN i.status = 'running' AND $10::text IS NOT NULL THEN 1 ELSE i.attempts END,
      lease_expires_at = CASE WHEN i.status = 'running' AND $10::text IS NOT NULL THEN $11::bigint END,
      wake_at = CASE WHEN i.status = 'running' AND $10::text IS NOT NULL THEN $11::bigint ELSE $8::bigint END
  FROM target WHERE i.id = target.id
  RETURNING i.id, i.root_id, i.process, i.version, i.task, i.state, i.retry_count, i.task_epoch, i.lease_epoch,
            i.parent_id, i.parent_task_epoch, i.status, i.lease_owner
),
dropped AS (
  DELETE FROM external_waits AS w USING upd WHERE w.instance_id = upd.id
),
logged AS (
  INSERT INTO logs (id, instance_id, root_id, level, event, message, task, actor, data, created_at)
  SELECT $12, upd.id, upd.root_id, 'info', 'external.resolved', $13, $7, $14, $15, $8::bigint FROM upd
)
SELECT * FROM upd`;

export interface ResolvedRow {
  /** The row as the statement left it, leased to the carrier when `carried`. */
  row: ClaimedRow;
  status: string;
  carried: boolean;
}

/** Null when the fence let nothing through: the claim is not live, or the row is not as `facts` says. */
export async function writeResolve(db: Db, clock: Clock, w: ResolveWrite): Promise<ResolvedRow | null> {
  const now = clock.now();
  const log = logRow(
    {
      instanceId: w.facts.instanceId,
      rootId: w.facts.rootId,
      level: "info",
      event: "external.resolved",
      message: w.message,
      task: w.facts.task,
      actor: w.actor,
      data: w.data,
    },
    now,
  );
  const [r] = await queryRows<Record<string, unknown>>(db, RESOLVE, [
    w.hash,
    w.facts.instanceId,
    w.facts.taskEpoch,
    w.facts.claimEpoch,
    w.facts.process,
    w.facts.version,
    w.facts.task,
    now,
    w.outcome,
    w.carrier,
    now + LEASE_MS,
    log.id,
    log.message,
    log.actor,
    log.data,
  ]);
  if (r === undefined) return null;
  const row: ClaimedRow = {
    id: String(r.id),
    rootId: String(r.root_id),
    process: String(r.process),
    version: Number(r.version),
    task: String(r.task),
    stateText: String(r.state),
    retryCount: Number(r.retry_count),
    taskEpoch: Number(r.task_epoch),
    leaseEpoch: Number(r.lease_epoch),
    reclaimedFrom: null,
    parentId: r.parent_id === null || r.parent_id === undefined ? null : String(r.parent_id),
    parentTaskEpoch: Number(r.parent_task_epoch ?? 0),
    // The carried lease counts as an attempt (docs/limits.md#poison-instances); the statement set it.
    attempts: 1,
  };
  return { row, status: String(r.status), carried: w.carrier !== null && r.lease_owner === w.carrier };
}

/** The outcome as stored under state._outcome, tagged with its visit (read back by advance/tasks/wait.ts). */
export function outcomeText(taskEpoch: number, outcome: { [key: string]: Json }): string {
  return stringifyJson({ task_epoch: taskEpoch, ...outcome });
}
