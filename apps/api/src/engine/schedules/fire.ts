// The fires of locked schedules inside the caller's transaction (docs/schedules.md "The firing
// pass"): planFires decides each fire (overlap, target, input) for one schedule and adds it to a
// batch; writeFires writes a whole batch in a few statements — the fire rows, then the instances
// of exactly the fire rows that landed — so a fire row and its instance commit as one.
import { sql } from "drizzle-orm";
import type { ServerConfig } from "../../config.js";
import type { Clock } from "../../clock.js";
import { type Db, rowsOf } from "../../storage/db.js";
import { newId } from "../../storage/ids.js";
import { insertObjects } from "../../storage/objects.js";
import { instances } from "../../storage/schema/index.js";
import { sqlTextArray } from "../../storage/sql-arrays.js";
import { appendLogs } from "../audit-log.js";
import { isLive } from "../statuses.js";
import { cancelTree } from "../trees/lifecycle.js";
import { buildFireStart, type FireStart, type Resolved, resolveTarget, type Target } from "./fire-start.js";
import type { FireOrigin, ReadSpec } from "./spec.js";

export type FireOutcome = "started" | "skipped" | "buffered" | "failed" | "missed";

/** One fire to run: its nominal time, when it was due, and where it comes from. */
export interface FireTime {
  fireAt: number;
  dueAt: number;
  origin: FireOrigin;
}

/** A fire row as written. */
export interface FireRecord extends FireTime {
  id: string;
  schedule: string;
  side: "calendar" | "trigger" | "missed";
  outcome: FireOutcome;
  instanceId: string | null;
  reason: string | null;
}

/** The locked schedule as a fire sees it; planFires moves its last instance and buffer. */
export interface FireState {
  name: string;
  target: Target;
  spec: ReadSpec;
  lastInstanceId: string | null;
  /** The last instance's status when the pass read it; null when there is none (or it was pruned). */
  lastStatus: string | null;
  bufferedFireAt: number | null;
}

export interface FireContext {
  db: Db;
  tx: Db;
  clock: Clock;
  config: ServerConfig;
  now: number;
  /** Targets resolved in this transaction, by process, channel and version: read once per batch. */
  targets: Map<string, Promise<Resolved>>;
}

/** What a batch will write. */
export interface FireBatch {
  records: FireRecord[];
  starts: Map<string, FireStart>;
  /** Buffered fire rows (buffer_one) that now start or are skipped. */
  bufferUpdates: Array<{
    schedule: string;
    fireAt: number;
    outcome: FireOutcome;
    instanceId: string | null;
    reason: string;
  }>;
}

export function newBatch(): FireBatch {
  return { records: [], starts: new Map(), bufferUpdates: [] };
}

function resolveOnce(ctx: FireContext, target: Target): Promise<Resolved> {
  const key = `${target.process}\u0000${target.channel ?? ""}\u0000${target.version ?? ""}`;
  let resolved = ctx.targets.get(key);
  if (resolved === undefined) {
    resolved = resolveTarget(ctx.db, ctx.tx, target);
    ctx.targets.set(key, resolved);
  }
  return resolved;
}

/**
 * Decides `times` for the schedule in `state` and adds them to `batch`: the buffered fire first
 * when `startBuffered` and the previous run has ended. Backfill fires start whatever the overlap
 * policy; cancel_previous cancels the live run here, in the caller's transaction.
 */
export async function planFires(
  ctx: FireContext,
  state: FireState,
  times: readonly FireTime[],
  startBuffered: boolean,
  batch: FireBatch,
): Promise<void> {
  const { now } = ctx;
  const live = () => state.lastInstanceId !== null && state.lastStatus !== null && isLive(state.lastStatus);

  async function start(time: FireTime): Promise<{ instanceId: string | null; reason: string | null }> {
    const resolved = await resolveOnce(ctx, state.target);
    const built = buildFireStart(state.name, state.spec, resolved, time.fireAt, time.origin, now, ctx.config);
    if (!built.ok) return { instanceId: null, reason: built.reason };
    await insertObjects(ctx.tx, ctx.clock, built.start.objects);
    batch.starts.set(built.start.row.id, built.start);
    state.lastInstanceId = built.start.row.id;
    state.lastStatus = "running";
    return { instanceId: built.start.row.id, reason: null };
  }

  if (startBuffered && state.bufferedFireAt !== null && !live()) {
    const fireAt = state.bufferedFireAt;
    const out = await start({ fireAt, dueAt: fireAt, origin: "scheduled" });
    batch.bufferUpdates.push({
      schedule: state.name,
      fireAt,
      outcome: out.instanceId === null ? "failed" : "started",
      instanceId: out.instanceId,
      reason: out.reason ?? "started once the previous run ended",
    });
    state.bufferedFireAt = null;
  }

  for (const time of times) {
    const side = time.origin === "trigger" ? "trigger" : "calendar";
    const record = (outcome: FireOutcome, instanceId: string | null, reason: string | null) =>
      batch.records.push({ ...time, id: newId(now), schedule: state.name, side, outcome, instanceId, reason });
    const policy = state.spec.stored.overlap;
    if (time.origin !== "backfill" && live() && policy !== "allow_all") {
      const previous = `instance ${state.lastInstanceId} of an earlier fire is still ${state.lastStatus}`;
      if (policy === "skip") {
        record("skipped", null, `${previous} (overlap: skip)`);
        continue;
      }
      if (policy === "buffer_one") {
        if (state.bufferedFireAt !== null)
          batch.bufferUpdates.push({
            schedule: state.name,
            fireAt: state.bufferedFireAt,
            outcome: "skipped",
            instanceId: null,
            reason: `a later fire (${new Date(time.fireAt).toISOString()}) took the buffer (overlap: buffer_one)`,
          });
        state.bufferedFireAt = time.fireAt;
        record("buffered", null, `${previous} (overlap: buffer_one)`);
        continue;
      }
      // cancel_previous: the previous run's tree is cancelled in this transaction.
      await cancelTree(ctx.tx, ctx.clock, state.lastInstanceId!, null);
    }
    const out = await start(time);
    record(out.instanceId === null ? "failed" : "started", out.instanceId, out.reason);
  }
}

/**
 * Writes `batch`: its fire rows (each only when its schedule, side and fire time is not
 * recorded yet), its buffer updates, and the instances of the buffered starts and of the fire
 * rows that landed, in start order. Returns the rows that landed and, per schedule, the last
 * instance inserted.
 */
export async function writeFires(
  ctx: Pick<FireContext, "tx" | "clock" | "now">,
  batch: FireBatch,
): Promise<{ landed: FireRecord[]; lastStarted: Map<string, string> }> {
  const landed = await insertFireRows(ctx.tx, batch.records, ctx.now);
  const inserted: FireStart[] = [];
  const lastStarted = new Map<string, string>();
  if (batch.bufferUpdates.length > 0) {
    await ctx.tx.execute(sql`
      UPDATE schedule_fires f SET outcome = u.outcome, instance_id = u.instance_id, reason = u.reason, fired_at = ${ctx.now}::bigint
      FROM jsonb_to_recordset(${JSON.stringify(
        batch.bufferUpdates.map((u) => ({
          schedule: u.schedule,
          fire_at: u.fireAt,
          outcome: u.outcome,
          instance_id: u.instanceId,
          reason: u.reason,
        })),
      )}::jsonb) AS u(schedule text, fire_at bigint, outcome text, instance_id text, reason text)
      WHERE f.schedule = u.schedule AND f.fire_at = u.fire_at AND f.outcome = 'buffered'`);
    for (const u of batch.bufferUpdates)
      if (u.instanceId !== null) {
        inserted.push(batch.starts.get(u.instanceId)!);
        lastStarted.set(u.schedule, u.instanceId);
      }
  }
  for (const record of landed)
    if (record.instanceId !== null) {
      inserted.push(batch.starts.get(record.instanceId)!);
      lastStarted.set(record.schedule, record.instanceId);
    }
  // Bound the bind parameters of one INSERT (26 columns a row, PostgreSQL takes 65,535).
  for (let i = 0; i < inserted.length; i += 1000)
    await ctx.tx.insert(instances).values(inserted.slice(i, i + 1000).map((s) => s.row));
  await appendLogs(
    ctx.tx,
    ctx.clock,
    inserted.map((s) => s.log),
  );
  return { landed, lastStarted };
}

/** Inserts fire rows, each only when its (schedule, side, fire time) is not recorded yet; returns those that landed. */
export async function insertFireRows(tx: Db, records: readonly FireRecord[], now: number): Promise<FireRecord[]> {
  if (records.length === 0) return [];
  const result = await tx.execute(sql`
    INSERT INTO schedule_fires (id, schedule, fire_at, side, origin, outcome, instance_id, reason, due_at, fired_at)
    SELECT r.id, r.schedule, r.fire_at, r.side, r.origin, r.outcome, r.instance_id, r.reason, r.due_at, ${now}::bigint
    FROM jsonb_to_recordset(${JSON.stringify(
      records.map((r) => ({
        id: r.id,
        schedule: r.schedule,
        fire_at: r.fireAt,
        side: r.side,
        origin: r.origin,
        outcome: r.outcome,
        instance_id: r.instanceId,
        reason: r.reason,
        due_at: r.dueAt,
      })),
    )}::jsonb) AS r(id text, schedule text, fire_at bigint, side text, origin text, outcome text, instance_id text, reason text, due_at bigint)
    ON CONFLICT (schedule, side, fire_at) DO NOTHING
    RETURNING id`);
  const ids = new Set(rowsOf<{ id: string }>(result).map((r) => r.id));
  return records.filter((r) => ids.has(r.id));
}

/** Last statuses of instances, by id (a pruned instance is absent). */
export async function statusesOf(tx: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = rowsOf<{ id: string; status: string }>(
    await tx.execute(sql`SELECT id, status FROM instances WHERE id = ANY(${sqlTextArray(ids)})`),
  );
  return new Map(rows.map((r) => [r.id, r.status]));
}
