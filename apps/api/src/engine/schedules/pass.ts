// The firing pass (docs/schedules.md "The firing pass"): ONE transaction that takes the due
// schedules no other replica holds (FOR UPDATE SKIP LOCKED), runs their fire times, and moves
// each one's next fire, so a fire row, its instance and the moved next fire commit together. A
// whole pass is a fixed number of statements however many schedules it fires (fire.ts).
import { sql } from "drizzle-orm";
import type { ServerConfig } from "../../config.js";
import type { Clock } from "../../clock.js";
import type { EngineMetrics } from "../../metrics/metrics.js";
import { type Db, inTransaction, rowsOf } from "../../storage/db.js";
import { newId } from "../../storage/ids.js";
import { type FireContext, type FireRecord, newBatch, planFires, writeFires } from "./fire.js";
import { planCalendarFires } from "./plan.js";
import { lockedScheduleState, SCHEDULE_COLUMNS, type ScheduleRow } from "./rows.js";

export interface PassResult {
  /** Fire rows recorded (every outcome). */
  fired: number;
  /** The pass stopped at its bound: due fires may be left for the next pass. */
  full: boolean;
}

export interface PassDeps {
  db: Db;
  clock: Clock;
  config: ServerConfig;
  metrics: EngineMetrics;
}

interface Moved {
  name: string;
  next_fire_at: number | null;
  next_due_at: number | null;
  buffered_fire_at: number | null;
  last_instance_id: string | null;
}

/** Runs one firing pass. */
export async function firingPass(deps: PassDeps): Promise<PassResult> {
  const { db, clock, config } = deps;
  const budget = config.limits.scheduleFiresPerPass;
  const now = clock.now();
  let landed: FireRecord[] = [];
  const result = await inTransaction(db, async (tx) => {
    // Due first (the index on next_due_at), then schedules holding a buffered fire whose run ended.
    const due = rowsOf<ScheduleRow>(
      await tx.execute(sql`
        SELECT ${SCHEDULE_COLUMNS} FROM schedules s LEFT JOIN instances i ON i.id = s.last_instance_id
        WHERE NOT s.paused AND s.next_due_at <= ${now}
        ORDER BY s.next_due_at LIMIT ${budget} FOR UPDATE OF s SKIP LOCKED`),
    );
    const buffered = rowsOf<ScheduleRow>(
      await tx.execute(sql`
        SELECT ${SCHEDULE_COLUMNS} FROM schedules s LEFT JOIN instances i ON i.id = s.last_instance_id
        WHERE NOT s.paused AND s.buffered_fire_at IS NOT NULL
          AND (s.next_due_at IS NULL OR s.next_due_at > ${now})
          AND (i.status IS NULL OR i.status IN ('completed', 'failed', 'raised', 'cancelled'))
        ORDER BY s.name LIMIT ${budget} FOR UPDATE OF s SKIP LOCKED`),
    );
    const ctx: FireContext = { db, tx, clock, config, now, targets: new Map() };
    const batch = newBatch();
    const moved: Moved[] = [];
    let left = budget;
    let full = due.length >= budget;
    for (const row of [...due, ...buffered]) {
      if (left <= 0) {
        full = true;
        break;
      }
      const state = lockedScheduleState(db, row);
      const plan =
        row.next_fire_at === null || row.next_due_at === null || Number(row.next_due_at) > now
          ? undefined
          : planCalendarFires({
              name: row.name,
              calendar: state.spec.calendar,
              jitterMs: state.spec.jitterMs,
              catchupWindowMs: state.spec.catchupWindowMs,
              nextFireAt: Number(row.next_fire_at),
              now,
              most: Math.min(config.limits.scheduleCatchupFires, left),
              catchupFires: config.limits.scheduleCatchupFires,
            });
      await planFires(ctx, state, plan?.fires ?? [], true, batch);
      for (const m of plan?.missed ?? [])
        batch.records.push({
          id: newId(now),
          schedule: row.name,
          fireAt: m.from,
          dueAt: m.from,
          origin: "scheduled",
          side: "missed",
          outcome: "missed",
          instanceId: null,
          reason: m.reason,
        });
      left -= Math.max(1, plan?.fires.length ?? 0);
      moved.push({
        name: row.name,
        next_fire_at: plan === undefined ? msOf(row.next_fire_at) : plan.nextFireAt,
        next_due_at: plan === undefined ? msOf(row.next_due_at) : plan.nextDueAt,
        buffered_fire_at: state.bufferedFireAt,
        last_instance_id: row.last_instance_id,
      });
    }
    const written = await writeFires(ctx, batch);
    landed = written.landed;
    for (const m of moved) m.last_instance_id = written.lastStarted.get(m.name) ?? m.last_instance_id;
    if (moved.length > 0)
      await tx.execute(sql`
        UPDATE schedules s SET next_fire_at = m.next_fire_at, next_due_at = m.next_due_at,
          buffered_fire_at = m.buffered_fire_at, last_instance_id = m.last_instance_id
        FROM jsonb_to_recordset(${JSON.stringify(moved)}::jsonb)
          AS m(name text, next_fire_at bigint, next_due_at bigint, buffered_fire_at bigint, last_instance_id text)
        WHERE s.name = m.name`);
    return { fired: landed.length, full };
  });
  const firedAt = clock.now();
  for (const r of landed)
    deps.metrics.scheduleFired(
      r.origin,
      r.outcome,
      r.outcome === "started" && r.origin === "scheduled" ? Math.max(0, firedAt - r.dueAt) / 1000 : undefined,
    );
  return result;
}

function msOf(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}
