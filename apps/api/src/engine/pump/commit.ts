// Over 300 lines on purpose: the batch write is ONE SQL statement, and the records it reads
// are built here beside it; the statement and its record shapes must change together.
import { type Json, stringifyJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import type { Clock } from "../../clock.js";
import { type Db, executePrepared, rowsOf, inTransaction } from "../../storage/db.js";
import type { AdvanceResult } from "../advance/advance-types.js";
import { CHILDREN_PER_TURN, type ChildSpawn } from "../advance/tasks/child.js";
import { acceptFirst } from "../../event-loop.js";
import { freshInstanceRow, freshState } from "../starts/fresh-row.js";
import { advancedColumns, instanceRecord } from "../instance-columns.js";
import { lockInIdOrder } from "../trees/lock.js";
import type { LeasedRow } from "../leases.js";
import { type InstanceState, PER_VISIT_KEYS } from "../advance/instance-state.js";
import { type LogEntry, logRow } from "../audit-log.js";
import { announceClaimable } from "../external/claim-wait.js";
import { insertObjects, type PlannedObject, planExternalize } from "../../storage/objects.js";
import { newId } from "../../storage/ids.js";
import { storableJson } from "../../storage/text.js";
import { LEASE_MS } from "../statuses.js";
import { writeWaitChanges } from "./wait-rows.js";
import { VISIT_COLUMNS, VISIT_ROW_TYPES, type VisitRow, visitRows } from "../visits/journal-rows.js";

/** One finished advance waiting for its fenced write. */
export interface PendingWrite {
  claim: LeasedRow;
  /** The state as stored when claimed (placeholders kept), so unchanged big values are not re-stored. */
  storedState: InstanceState;
  result: AdvanceResult;
  /**
   * This worker will run the instance's next advance itself if the write leaves it running and
   * due now: the row keeps the lease (same lease_epoch, expiry renewed) instead of going back to
   * the queue, which saves a claim round trip per task.
   */
  keepLeaseFor?: string;
  /** The advance's span as a traceparent: the parent of the children it spawns (docs/tracing.md "Children"). */
  traceParent?: string;
}

export interface WriteOutcome {
  /** false: the fence moved (another worker or an operator took the row); nothing was written. */
  applied: boolean;
  status?: string;
  wakeAt?: number | null;
  /**
   * The row is still leased to `keepLeaseFor`: what the next advance starts from, and the
   * lease expiry the write set (from a timestamp taken before the statement was sent, so a
   * stalled write cannot make the lease look longer than the row says).
   */
  kept?: { task: string; taskEpoch: number; retryCount: number; storedState: Json; leaseUntil: number };
}

/**
 * Writes many advances, each fenced by its claimed lease_epoch, in ONE statement: the row
 * updates and their log lines together, so a batch costs one round trip (a busy engine process
 * answers each round trip only after a full turn of its event loop, and that wait — not
 * PostgreSQL — dominated batches of five statements). A transaction is opened only when the
 * batch also stores objects or changes external-task rows.
 *
 * Pause/cancel requested by an operator while the advance ran land here: the UPDATE reads
 * `requested` from the row version it locks (READ COMMITTED re-reads a row a concurrent verb
 * changed), so a verb is either fully before this write (applied here) or fully after it (it
 * sees the advance's result).
 */
export async function writeAdvances(
  db: Db,
  clock: Clock,
  thresholdBytes: number,
  writes: readonly PendingWrite[],
): Promise<WriteOutcome[]> {
  if (writes.length === 0) return [];
  const now = clock.now();
  const batch = await buildBatch(writes, now, thresholdBytes);
  const write = async (tx: Db): Promise<WriteOutcome[]> => {
    await insertObjects(
      tx,
      clock,
      [...batch.objects.values()].sort((a, b) => (a.ref < b.ref ? -1 : 1)),
    );
    const landed = await runBatch(tx, batch, now);
    const outcomes = outcomesOf(writes, batch, landed);
    const answered = await writeWaitChanges(
      tx,
      clock,
      writes
        .filter((w) => landed.has(w.claim.id))
        .map((w) => ({ instanceId: w.claim.id, rootId: w.claim.rootId, result: w.result })),
    );
    // A park answered in this transaction by a late signal is due with no lease (delivery.ts
    // `deliver`): a kept lease would carry an advance whose lease epoch is already stale.
    return outcomes.map((o, i) =>
      answered.has(writes[i].claim.id) && o.applied
        ? { applied: true, status: o.status === "pausing" ? "paused" : o.status, wakeAt: clock.now() }
        : o,
    );
  };
  const touchesMore =
    batch.objects.size > 0 ||
    writes.some((w) => typeof w.result.externalWait === "object" || w.result.consumedSignal !== undefined);
  // (Children and parent wake-ups ride in the one statement: no transaction needed for them.)
  const outcomes = await (touchesMore ? inTransaction(db, write) : write(db));
  // Committed: a long-polling claim of this process can take the tasks this batch parked.
  if (writes.some((w, i) => typeof w.result.externalWait === "object" && outcomes[i].applied)) announceClaimable(db);
  return outcomes;
}

/** What one batch statement writes: rows, children, log lines, and the objects stored first. */
interface Batch {
  objects: Map<string, PlannedObject>;
  /** Each write's state and output as stored (placeholders for externalised values). */
  stored: Array<{ state: Json; output: Json | undefined }>;
  records: Array<{ id: string } & Record<string, unknown>>;
  children: Array<ReturnType<typeof childRecord>>;
  logs: Array<ReturnType<typeof logRow> & { gate_id: string }>;
  /** The parents a settling child of this batch decrements: locked with the batch's rows. */
  parents: string[];
  /** The visit journal rows of the batch's task entries (visits/journal-rows.ts). */
  visits: VisitRow[];
}

/** The records of the batch statement, built from the writes (children in several turns of the event loop). */
async function buildBatch(writes: readonly PendingWrite[], now: number, thresholdBytes: number): Promise<Batch> {
  const objects = new Map<string, PlannedObject>();
  const stored = writes.map(({ storedState, result }) => {
    const state = planExternalize(toStore(storedState, result), thresholdBytes);
    const output = result.output === undefined ? undefined : planExternalize(result.output, thresholdBytes);
    for (const o of [...state.objects, ...(output?.objects ?? [])]) objects.set(o.ref, o);
    return { state: state.value, output: output?.value };
  });

  const logs: Array<ReturnType<typeof logRow> & { gate_id: string }> = [];
  const children: Array<ReturnType<typeof childRecord>> = [];
  const records: Array<{ id: string } & Record<string, unknown>> = [];
  const visits: VisitRow[] = [];
  let built = 0;
  for (const [i, { claim, result, keepLeaseFor, traceParent }] of writes.entries()) {
    const keep =
      keepLeaseFor !== undefined && result.status === "running" && result.wakeAt !== null && result.wakeAt <= now;
    for (const log of result.logs)
      logs.push({
        ...logRow(entry(claim, log.level, log.event, log.message, log.task ?? null, log.data ?? null), now),
        gate_id: claim.id,
      });
    for (const spawn of result.spawns ?? []) {
      const state = planExternalize(freshState(spawn.input), thresholdBytes);
      for (const o of state.objects) objects.set(o.ref, o);
      children.push(
        childRecord(claim, result, spawn, stringifyJson(state.value), now, traceParent ?? claim.traceParent),
      );
      const where = spawn.key !== null ? ` as "${spawn.key}"` : spawn.index !== null ? ` as [${spawn.index}]` : "";
      const started = entry(
        { ...claim, id: spawn.id },
        "info",
        "instance.started",
        `started ${spawn.process} version ${spawn.version} at task "${spawn.firstTask}" by task "${result.task}" of ${claim.id}${where}`,
        spawn.firstTask,
        {
          process: spawn.process,
          version: spawn.version,
          parent_id: claim.id,
        },
      );
      // Gated on the parent: the line is written only if the parent's write (which inserts the child) lands.
      logs.push({ ...logRow(started, now), gate_id: claim.id });
      // Thousands of children are built in several turns of the event loop, not one (docs/limits.md#trees).
      if (++built % CHILDREN_PER_TURN === 0) await acceptFirst();
    }
    records.push(advanceRecord(claim, result, stored[i], keep ? keepLeaseFor : undefined, now));
    visits.push(...visitRows(claim.id, result.visits, now));
  }
  // A settling child decrements its parent's counter: the parent row is locked with the batch's
  // own rows, in id order (lifecycle verbs lock trees in id order too), so no two statements
  // ever wait on each other in a cycle.
  const parents = writes
    .filter(
      ({ claim, result }) =>
        claim.parentId !== null &&
        (result.status === "completed" || result.status === "failed" || result.status === "raised"),
    )
    .map(({ claim }) => claim.parentId as string);
  return { objects, stored, records, children, logs, parents, visits };
}

/**
 * One write's record in the batch statement: the fence (lease_epoch), the columns its result
 * sets, and what the statement does around it. `keepFor` keeps the lease for that worker's next
 * advance.
 */
function advanceRecord(
  claim: LeasedRow,
  result: AdvanceResult,
  stored: { state: Json; output: Json | undefined },
  keepFor: string | undefined,
  now: number,
): { id: string } & Record<string, unknown> {
  return {
    id: claim.id,
    root_id: claim.rootId,
    lease_epoch: claim.leaseEpoch,
    ...instanceRecord(
      advancedColumns(result, {
        state: stringifyJson(stored.state),
        output: stored.output === undefined ? null : stringifyJson(stored.output),
      }),
    ),
    // Applied only if the row is still running after a requested pause/cancel is taken into account.
    keep_owner: keepFor ?? null,
    keep_until: keepFor === undefined ? null : now + LEASE_MS,
    // The id of the line logged if a pause/cancel requested while the advance ran lands with it
    // (after this advance's own lines, so ids keep the order of events).
    boundary_log_id: result.status === "running" ? newId(now) : null,
    parent_id: claim.parentId,
    parent_task_epoch: claim.parentTaskEpoch,
    // The children this write spawns, all pending; null keeps the row's count.
    pending: result.spawns === undefined ? null : result.spawns.length,
    // The visit of an external task ended without a resolve (or after one): its claim row goes with this write.
    clear_wait: result.externalWait === "clear",
  };
}

/** The batch statement; answers the rows written (the fence held), by instance id. */
async function runBatch(tx: Db, batch: Batch, now: number): Promise<Map<string, LandedRow>> {
  const { records, children, logs, parents, visits } = batch;
  const landed = await executePrepared(
    tx,
    sql`
    WITH x AS (
      SELECT * FROM jsonb_to_recordset(${storableJson(records)}::jsonb) AS x(
        id text, lease_epoch integer, status text, task text, task_epoch integer, retry_count integer, state text,
        error_code text, error_message text, output text, wake_at bigint, phase text, keep_owner text, keep_until bigint,
        root_id text, boundary_log_id text, parent_id text, parent_task_epoch integer, pending integer, clear_wait boolean)
    ),
    locked AS (${lockInIdOrder([...new Set([...records.map((r) => r.id), ...parents])])}),
    upd AS (
      UPDATE instances AS i
      SET status = CASE WHEN x.status <> 'running' OR i.requested IS NULL THEN x.status
                        WHEN i.requested = 'cancel' THEN 'cancelled' ELSE 'paused' END,
          wake_at = CASE WHEN x.status = 'running' AND i.requested = 'cancel' THEN NULL
                         WHEN x.status = 'running' AND i.requested IS NULL AND x.keep_owner IS NOT NULL THEN x.keep_until
                         ELSE x.wake_at END,
          lease_owner = CASE WHEN i.requested IS NULL THEN x.keep_owner END,
          lease_expires_at = CASE WHEN i.requested IS NULL THEN x.keep_until END,
          task = x.task, task_epoch = x.task_epoch, retry_count = x.retry_count, state = x.state,
          error_code = x.error_code, error_message = x.error_message, output = x.output, phase = x.phase,
          pending_children = COALESCE(x.pending, i.pending_children),
          -- The children this advance reserved (pump/child-environment.ts) are rows from here on,
          -- inserted below in this same statement, and stay counted in the root's tree_size; the
          -- root row is not touched. Clearing the reservation anywhere but in the statement that
          -- inserts the children would let a recount drop them before they exist
          -- (docs/limits.md#trees).
          reserved_children = 0,
          attempts = 0, requested = NULL, updated_at = ${now}
      FROM x JOIN locked ON locked.id = x.id
      -- The statuses a leased row can have when its advance lands; any other was decided by someone else.
      WHERE i.id = x.id AND i.lease_epoch = x.lease_epoch AND i.status IN ('running', 'pausing', 'cancelling')
        -- Children are inserted only with their reservation in the tree (trees/reservation.ts), never
        -- unreserved; a cancelling row lands cancelled and inserts none.
        AND (COALESCE(x.pending, 0) = 0 OR i.status = 'cancelling'
             OR (i.reserved_epoch = x.lease_epoch AND i.reserved_children >= x.pending))
      RETURNING i.id, i.status, i.wake_at, i.lease_owner
    ),
    spawned AS (
      -- Children start with their parent's landed status: paused at a paused boundary, not at all when it was cancelled.
      INSERT INTO instances (id, root_id, parent_id, spawn_task, spawn_key, parent_task_epoch, process, version, status, phase, task,
                             state, task_epoch, lease_epoch, wake_at, created_at, updated_at, trace_parent)
      SELECT c.id, c.root_id, c.parent_id, c.spawn_task, c.spawn_key, c.parent_task_epoch, c.process, c.version,
             CASE WHEN upd.status = 'paused' THEN 'paused' ELSE c.status END, c.phase, c.task, c.state, c.task_epoch,
             c.lease_epoch, c.wake_at, c.created_at, c.updated_at, c.trace_parent
      FROM jsonb_to_recordset(${storableJson(children)}::jsonb) AS c(
        id text, root_id text, parent_id text, spawn_task text, spawn_key text, parent_task_epoch integer, process text, version integer,
        status text, phase text, task text, state text, task_epoch integer, lease_epoch integer, wake_at bigint, created_at bigint,
        updated_at bigint, trace_parent text)
      JOIN upd ON upd.id = c.parent_id
      WHERE upd.status IN ('running', 'paused')
      RETURNING id
    ),
    settled AS (
      SELECT x.parent_id, x.parent_task_epoch, count(*)::int AS n, bool_or(upd.status = 'failed') AS failed
      FROM x JOIN upd ON upd.id = x.id
      WHERE x.parent_id IS NOT NULL AND upd.status IN ('completed', 'failed', 'raised')
      GROUP BY x.parent_id, x.parent_task_epoch
    ),
    woken AS (
      -- The child that brings the count to 0 makes the parent due to collect (timers run while
      -- paused, so a paused parent is due at once on resume). A failed child marks a parent
      -- whose other children still run as failing until they settle.
      UPDATE instances AS p
      SET pending_children = p.pending_children - s.n,
          phase = CASE WHEN p.pending_children - s.n <= 0 THEN 'collecting' ELSE p.phase END,
          wake_at = CASE WHEN p.pending_children - s.n <= 0 THEN ${now}::bigint ELSE p.wake_at END,
          status = CASE WHEN p.status = 'failing' AND p.pending_children - s.n <= 0 THEN 'running'
                        WHEN p.status = 'running' AND s.failed AND p.pending_children - s.n > 0 THEN 'failing'
                        ELSE p.status END,
          updated_at = ${now}
      FROM settled s
      WHERE p.id = s.parent_id AND p.task_epoch = s.parent_task_epoch AND p.phase = 'children'
        AND p.status IN ('running', 'failing', 'pausing', 'paused')
      RETURNING p.id
    ),
    logged AS (
      INSERT INTO logs (id, instance_id, root_id, level, event, message, task, actor, data, created_at)
      SELECT l.id, l.instance_id, l.root_id, l.level, l.event, l.message, l.task, l.actor, l.data, l.created_at
      FROM jsonb_to_recordset(${storableJson(logs)}::jsonb) AS l(
        id text, instance_id text, root_id text, level text, event text, message text, task text, actor text, data text, created_at bigint,
        gate_id text)
      JOIN upd ON upd.id = l.gate_id
      WHERE l.gate_id = l.instance_id OR upd.status IN ('running', 'paused')
      UNION ALL
      SELECT x.boundary_log_id, x.id, x.root_id, 'info', 'instance.' || upd.status,
             upd.status || ' at the boundary of task "' || x.task || '"', x.task, NULL, NULL, ${now}::bigint
      FROM x JOIN upd ON upd.id = x.id
      WHERE x.status = 'running' AND upd.status IN ('paused', 'cancelled')
    ),
    cleared AS (
      DELETE FROM external_waits AS w USING x JOIN upd ON upd.id = x.id WHERE w.instance_id = x.id AND x.clear_wait
    ),
    visited AS (
      -- The journal rows of the advances that landed (docs/safe-change.md "The visit journal").
      INSERT INTO task_visits (${sql.raw(VISIT_COLUMNS)})
      SELECT ${sql.raw(VISIT_COLUMNS.replace(/(\w+)/g, "v.$1"))}
      FROM jsonb_to_recordset(${storableJson(visits)}::jsonb) AS v(${sql.raw(VISIT_ROW_TYPES)})
      JOIN upd ON upd.id = v.instance_id
      ON CONFLICT DO NOTHING
    )
    SELECT id, status, wake_at, lease_owner FROM upd`,
  );
  return new Map(rowsOf<LandedRow>(landed).map((r) => [r.id, r]));
}

interface LandedRow {
  id: string;
  status: string;
  wake_at: string | number | null;
  lease_owner: string | null;
}

/** Each write's outcome: fenced out, landed, or landed keeping the lease for the next advance. */
function outcomesOf(writes: readonly PendingWrite[], batch: Batch, landed: Map<string, LandedRow>): WriteOutcome[] {
  return writes.map(({ claim, result }, i) => {
    const row = landed.get(claim.id);
    if (row === undefined) return { applied: false };
    const wakeAt = row.wake_at === null ? null : Number(row.wake_at);
    if (row.lease_owner === null) return { applied: true, status: row.status, wakeAt };
    return {
      applied: true,
      status: row.status,
      wakeAt,
      kept: {
        task: result.task,
        taskEpoch: result.taskEpoch,
        retryCount: result.retryCount,
        storedState: batch.stored[i].state,
        leaseUntil: Number(batch.records[i].keep_until),
      },
    };
  });
}

function entry(
  claim: LeasedRow,
  level: LogEntry["level"],
  event: string,
  message: string,
  task: string | null,
  data: Record<string, Json> | null = null,
): LogEntry {
  return { instanceId: claim.id, rootId: claim.rootId, level, event, message, task, data };
}

/** A child's fresh row (freshInstanceRow) under its column names, as the commit statement reads it. */
function childRecord(
  parent: LeasedRow,
  result: AdvanceResult,
  spawn: ChildSpawn,
  state: string,
  now: number,
  traceParent: string | null,
) {
  return instanceRecord(
    freshInstanceRow({
      id: spawn.id,
      rootId: parent.rootId,
      parentId: parent.id,
      spawnTask: result.task,
      spawnKey: spawn.key ?? (spawn.index === null ? null : String(spawn.index)),
      parentTaskEpoch: result.taskEpoch,
      process: spawn.process,
      version: spawn.version,
      task: spawn.firstTask,
      state,
      traceParent,
      now,
    }),
  );
}

/** The new state with values this advance did not write kept in their stored (placeholder) form. */
export function toStore(stored: InstanceState, result: AdvanceResult): Json {
  const next = result.state;
  const outputs: { [task: string]: Json } = {};
  for (const [task, value] of Object.entries(next.outputs)) {
    outputs[task] = result.written.has(task) || !(task in stored.outputs) ? value : stored.outputs[task];
  }
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(next)) {
    if (value !== undefined)
      out[key] = key in stored && stored[key] !== undefined && !PER_VISIT_KEYS.has(key) ? (stored[key] as Json) : value;
  }
  out.outputs = outputs;
  if (next._error !== undefined) out._error = next._error;
  else delete out._error;
  return out;
}
