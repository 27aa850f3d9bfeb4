// Runs fire times of one schedule inside the caller's transaction, the schedule's row locked
// (docs/schedules.md "The firing pass"): the overlap decision for each, the instances started,
// and the fire rows, inserted together so that a fire row and its instance commit as one.
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
  side: "calendar" | "trigger" | "missed";
  outcome: FireOutcome;
  instanceId: string | null;
  reason: string | null;
}

/** The locked schedule as a fire sees it, and what the fires leave. */
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
}

/**
 * Runs `times` for the schedule in `state` (mutated: its last instance and buffer move), the
 * buffered fire first when `startBuffered` and the previous run has ended. Backfill fires start
 * whatever the overlap policy. Returns the fire rows that landed (a time already recorded on
 * its side lands nothing, and its instance is not inserted).
 */
export async function runFires(
  ctx: FireContext,
  state: FireState,
  times: readonly FireTime[],
  startBuffered: boolean,
): Promise<FireRecord[]> {
  const now = ctx.clock.now();
  const records: FireRecord[] = [];
  const started = new Map<string, FireStart>();
  const bufferUpdates: Array<{ fireAt: number; outcome: FireOutcome; instanceId: string | null; reason: string }> = [];
  let resolved: Resolved | undefined;
  const previousLast = state.lastInstanceId;
  const previousStatus = state.lastStatus;
  const live = () => state.lastInstanceId !== null && state.lastStatus !== null && isLive(state.lastStatus);

  async function start(time: FireTime): Promise<{ instanceId: string | null; reason: string | null }> {
    resolved ??= await resolveTarget(ctx.db, ctx.tx, state.target);
    const built = buildFireStart(state.name, state.spec, resolved, time.fireAt, time.origin, now, ctx.config);
    if (!built.ok) return { instanceId: null, reason: built.reason };
    await insertObjects(ctx.tx, ctx.clock, built.start.objects);
    started.set(built.start.row.id, built.start);
    state.lastInstanceId = built.start.row.id;
    state.lastStatus = "running";
    return { instanceId: built.start.row.id, reason: null };
  }

  if (startBuffered && state.bufferedFireAt !== null && !live()) {
    const fireAt = state.bufferedFireAt;
    const out = await start({ fireAt, dueAt: fireAt, origin: "scheduled" });
    bufferUpdates.push({
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
      records.push({ ...time, id: newId(now), side, outcome, instanceId, reason });
    const policy = state.spec.stored.overlap;
    if (time.origin !== "backfill" && live() && policy !== "allow_all") {
      const previous = `instance ${state.lastInstanceId} of an earlier fire is still ${state.lastStatus}`;
      if (policy === "skip") {
        record("skipped", null, `${previous} (overlap: skip)`);
        continue;
      }
      if (policy === "buffer_one") {
        if (state.bufferedFireAt !== null)
          bufferUpdates.push({
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

  const landed = await insertFireRows(ctx.tx, state.name, records, now);
  // The instances to insert, in start order: the buffered fire's (its row exists already), then
  // those whose fire row landed. A fire dropped by the unique index starts nothing.
  const inserted: FireStart[] = [];
  for (const update of bufferUpdates) {
    await ctx.tx.execute(sql`
      UPDATE schedule_fires SET outcome = ${update.outcome}, instance_id = ${update.instanceId}, reason = ${update.reason},
        fired_at = ${now}
      WHERE schedule = ${state.name} AND fire_at = ${update.fireAt} AND outcome = 'buffered'`);
    if (update.instanceId !== null) inserted.push(started.get(update.instanceId)!);
  }
  for (const record of landed) if (record.instanceId !== null) inserted.push(started.get(record.instanceId)!);
  if (inserted.length > 0) {
    await ctx.tx.insert(instances).values(inserted.map((s) => s.row));
    await appendLogs(
      ctx.tx,
      ctx.clock,
      inserted.map((s) => s.log),
    );
  }
  if (started.size > 0) state.lastInstanceId = inserted.at(-1)?.row.id ?? previousLast;
  if (started.size > 0 && inserted.length === 0) state.lastStatus = previousStatus;
  return landed;
}

/** Inserts fire rows, each only when its (schedule, side, fire time) is not recorded yet; returns those that landed. */
export async function insertFireRows(
  tx: Db,
  schedule: string,
  records: readonly FireRecord[],
  now: number,
): Promise<FireRecord[]> {
  if (records.length === 0) return [];
  const result = await tx.execute(sql`
    INSERT INTO schedule_fires (id, schedule, fire_at, side, origin, outcome, instance_id, reason, due_at, fired_at)
    SELECT r.id, ${schedule}, r.fire_at, r.side, r.origin, r.outcome, r.instance_id, r.reason, r.due_at, ${now}::bigint
    FROM jsonb_to_recordset(${JSON.stringify(
      records.map((r) => ({
        id: r.id,
        fire_at: r.fireAt,
        side: r.side,
        origin: r.origin,
        outcome: r.outcome,
        instance_id: r.instanceId,
        reason: r.reason,
        due_at: r.dueAt,
      })),
    )}::jsonb) AS r(id text, fire_at bigint, side text, origin text, outcome text, instance_id text, reason text, due_at bigint)
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
