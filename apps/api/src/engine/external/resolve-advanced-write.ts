import type { Clock } from "../../clock.js";
import { type Db, queryRows } from "../../storage/db.js";
import { textArray } from "../../storage/sql-arrays.js";
import { storableJson, storableText } from "../../storage/text.js";
import { logRow } from "../audit-log.js";
import { advancedColumns, instanceRecord } from "../instance-columns.js";
import { type LeasedRow, leasedRow } from "../leases.js";
import type { InMemoryAdvance } from "../carry.js";
import { LEASE_MS } from "../statuses.js";
import type { ParkedRow, ResolveWrite } from "./resolve.js";
import { insertVisitsFrom, type VisitRow, visitRows } from "../visits/journal-rows.js";

// The statement of the one-version resolve (resolve-advanced.ts decides what goes into it).

/** A resolve whose advance was computed: written in one version if the fence holds. */
export interface AdvancedWrite {
  write: ResolveWrite;
  parked: ParkedRow;
  computed: InMemoryAdvance;
}

/** Whether the advance left the instance due now: the next advance can follow under a kept lease. */
export function dueNow(a: AdvancedWrite, now: number): boolean {
  const { result } = a.computed;
  return result.status === "running" && result.wakeAt !== null && result.wakeAt <= now;
}

// One statement for any number of resolves (at most one per instance), in two texts as the
// plain statement (resolve.ts): a single resolve passes its item as scalars, so its generic
// plan expects one row and reaches every row by primary key (a jsonb_to_recordset source is
// estimated at 100 rows, and the UPDATE and DELETE then hashed a sequential scan of instances
// and external_waits); a batch passes one text array per column, planned per call for as many
// rows as it has. Log lines are jsonb records. Each item's rows are reached by primary key in a
// LATERAL subquery with FOR UPDATE (never flattened; status, phase, process and version compared
// in a form no index serves: with `status = 'running' AND phase = 'external'` the generic plan
// took instances_counts_idx, whose statistics may say no row is parked), wait row before
// instance, as the plain statement and claim lock them (resolve.ts).
// The fence is the plain statement's (the claim is the wait's live claim, made for its current
// arming; the instance is on that visit) plus everything the advance read: the row is `running`
// with no request pending, at the same task and retry count, with the same state text.
// $1 log lines, $2 now, $3 the visit journal rows (visits/journal-rows.ts), then the item(s).
const advancedStatement = (source: string) => `
WITH x AS (${source}),
target AS (
  SELECT l.id, x.* FROM x
  CROSS JOIN LATERAL (
    SELECT i.id FROM external_claims c, external_waits w, instances i
    WHERE c.token_hash = x.hash AND c.instance_id = x.instance_id AND c.task_epoch = x.old_task_epoch
      AND c.claim_epoch = x.claim_epoch
      AND w.instance_id = x.instance_id AND w.task_epoch = x.old_task_epoch AND w.claim_epoch = x.claim_epoch
      AND w.task = x.old_task AND w.claim_expires_at > $2::bigint AND c.created_at >= w.waiting_since
      AND i.id = x.instance_id AND i.task_epoch = x.old_task_epoch AND i.task = x.old_task
      AND i.process IS NOT DISTINCT FROM x.process AND i.version IS NOT DISTINCT FROM x.version
      AND i.status IS NOT DISTINCT FROM 'running' AND i.phase IS NOT DISTINCT FROM 'external'
      AND i.requested IS NULL AND i.retry_count = x.old_retry_count
      AND i.state = x.old_state
    FOR UPDATE OF w, i
  ) l
),
upd AS (
  UPDATE instances AS i
  SET status = t.status, task = t.task, task_epoch = t.task_epoch, retry_count = t.retry_count,
      state = t.state, error_code = t.error_code, error_message = t.error_message, output = t.output,
      phase = t.phase, wake_at = COALESCE(t.keep_until, t.wake_at), lease_owner = t.keep_owner,
      lease_expires_at = t.keep_until, lease_epoch = i.lease_epoch + 1, attempts = 0, requested = NULL,
      updated_at = $2::bigint
  FROM target t WHERE i.id = t.id
  RETURNING i.id, i.lease_epoch, i.lease_owner
),
dropped AS (
  DELETE FROM external_waits AS w USING upd WHERE w.instance_id = upd.id
),
logged AS (
  INSERT INTO logs (id, instance_id, root_id, level, event, message, task, actor, data, created_at)
  SELECT l.id, l.instance_id, l.root_id, l.level, l.event, l.message, l.task, l.actor, l.data, l.created_at
  FROM jsonb_to_recordset($1::jsonb) AS l(
    id text, instance_id text, root_id text, level text, event text, message text, task text, actor text, data text,
    created_at bigint)
  JOIN upd ON upd.id = l.instance_id
),
visited AS (${insertVisitsFrom("$3", "upd")})
SELECT id, lease_epoch, lease_owner FROM upd`;

/** The columns of one item, in the order of the single resolve's parameters $4 … $24. */
const COLUMNS = [
  ["hash", "text"],
  ["instance_id", "text"],
  ["old_task_epoch", "integer"],
  ["claim_epoch", "integer"],
  ["process", "text"],
  ["version", "integer"],
  ["old_task", "text"],
  ["old_state", "text"],
  ["old_retry_count", "integer"],
  ["status", "text"],
  ["task", "text"],
  ["task_epoch", "integer"],
  ["retry_count", "integer"],
  ["state", "text"],
  ["error_code", "text"],
  ["error_message", "text"],
  ["output", "text"],
  ["wake_at", "bigint"],
  ["phase", "text"],
  ["keep_owner", "text"],
  ["keep_until", "bigint"],
] as const;

const ADVANCED_ONE = advancedStatement(
  `SELECT ${COLUMNS.map(([name, type], i) => `$${i + 4}::${type} AS ${name}`).join(", ")}`,
);
const ADVANCED_MANY = advancedStatement(
  `SELECT ${COLUMNS.map(([name, type]) => `u.${name}::${type} AS ${name}`).join(", ")}
   FROM unnest(${COLUMNS.map((_, i) => `$${i + 4}::text[]`).join(", ")}) AS u(${COLUMNS.map(([name]) => name).join(", ")})`,
);

/**
 * Writes `items` (at most one per instance) in one statement; the rows written by instance id,
 * with the lease epoch they now have. An item missing from the map was fenced out and wrote
 * nothing. `carrier` keeps the lease of every item its advance left due now (the next advance
 * is the carrier's to run), exactly as a pump write keeps it for lease chaining.
 */
export async function writeAdvancedResolves(
  db: Db,
  clock: Clock,
  items: readonly AdvancedWrite[],
  actor: string | null,
  carrier: string | null,
): Promise<Map<string, { leaseEpoch: number; kept: boolean }>> {
  const now = clock.now();
  const logs: ReturnType<typeof logRow>[] = [];
  const visits: VisitRow[] = [];
  const records = items.map((a): Record<string, unknown> => {
    const { write, parked, computed } = a;
    const { facts } = write;
    const { result } = computed;
    const base = { instanceId: facts.instanceId, rootId: facts.rootId };
    logs.push(
      logRow(
        {
          ...{ ...base, level: "info", event: "external.resolved", message: write.message, task: facts.task },
          ...{ actor, data: write.data },
        },
        now,
      ),
    );
    for (const l of result.logs)
      logs.push(
        logRow(
          { ...base, level: l.level, event: l.event, message: l.message, task: l.task ?? null, data: l.data ?? null },
          now,
        ),
      );
    visits.push(...visitRows(facts.instanceId, result.visits, now));
    const keep = carrier !== null && dueNow(a, now);
    return {
      hash: write.hash,
      instance_id: facts.instanceId,
      old_task_epoch: facts.taskEpoch,
      claim_epoch: facts.claimEpoch,
      process: facts.process,
      version: facts.version,
      old_task: facts.task,
      old_state: parked.stateText,
      old_retry_count: parked.retryCount,
      ...instanceRecord(advancedColumns(result, computed)),
      keep_owner: keep ? carrier : null,
      keep_until: keep ? now + LEASE_MS : null,
    };
  });
  const one = records.length === 1;
  const rows = await queryRows<{ id: string; lease_epoch: number | string; lease_owner: string | null }>(
    db,
    one ? ADVANCED_ONE : ADVANCED_MANY,
    [
      storableJson(logs),
      now,
      storableJson(visits),
      ...COLUMNS.map(([name]) =>
        one
          ? records[0][name]
          : textArray(records.map((r) => (r[name] === null ? null : storableText(String(r[name]))))),
      ),
    ],
  );
  const out = new Map<string, { leaseEpoch: number; kept: boolean }>();
  for (const r of rows)
    out.set(String(r.id), { leaseEpoch: Number(r.lease_epoch), kept: carrier !== null && r.lease_owner === carrier });
  return out;
}

/** The row a kept lease hands to the carrier's engine: where the advance left it. */
export function keptLeaseRow(a: AdvancedWrite, leaseEpoch: number): LeasedRow {
  const { facts } = a.write;
  const { result } = a.computed;
  return leasedRow({
    id: facts.instanceId,
    rootId: facts.rootId,
    process: facts.process,
    version: facts.version,
    task: result.task,
    stateText: a.computed.state,
    retryCount: result.retryCount,
    taskEpoch: result.taskEpoch,
    leaseEpoch,
    parentId: a.parked.parentId,
    parentTaskEpoch: a.parked.parentTaskEpoch,
    attempts: 0,
    traceParent: a.parked.traceParent,
  });
}
