// The firing pass (docs/schedules.md "The firing pass"): ONE transaction that takes the due
// schedules no other replica holds (FOR UPDATE SKIP LOCKED), runs their fire times, and moves
// each one's next fire, so a fire row, its instance and the moved next fire commit together.
import { sql } from "drizzle-orm";
import type { EngineMetrics } from "../../metrics/metrics.js";
import type { ServerConfig } from "../../config.js";
import type { Clock } from "../../clock.js";
import { type Db, inTransaction, rowsOf } from "../../storage/db.js";
import { newId } from "../../storage/ids.js";
import { type FireRecord, insertFireRows, runFires } from "./fire.js";
import { planCalendarFires } from "./plan.js";
import { lockedScheduleState, type ScheduleRow, SCHEDULE_COLUMNS } from "./rows.js";

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

/** Runs one firing pass. */
export async function firingPass(deps: PassDeps): Promise<PassResult> {
  const { db, clock, config } = deps;
  const budget = config.limits.scheduleFiresPerPass;
  const now = clock.now();
  const recorded: FireRecord[] = [];
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
      const fires = await runFires({ db, tx, clock, config }, state, plan?.fires ?? [], true);
      const missed = await insertFireRows(
        tx,
        row.name,
        (plan?.missed ?? []).map((m) => ({
          id: newId(now),
          fireAt: m.from,
          dueAt: m.from,
          origin: "scheduled" as const,
          side: "missed" as const,
          outcome: "missed" as const,
          instanceId: null,
          reason: m.reason,
        })),
        now,
      );
      recorded.push(...fires, ...missed);
      left -= Math.max(1, fires.length);
      const nextFireAt = plan === undefined ? row.next_fire_at : plan.nextFireAt;
      const nextDueAt = plan === undefined ? row.next_due_at : plan.nextDueAt;
      await tx.execute(sql`
        UPDATE schedules SET next_fire_at = ${nextFireAt}, next_due_at = ${nextDueAt},
          buffered_fire_at = ${state.bufferedFireAt}, last_instance_id = ${state.lastInstanceId}
        WHERE name = ${row.name}`);
    }
    return { fired: recorded.length, full };
  });
  const firedAt = clock.now();
  for (const r of recorded)
    deps.metrics.scheduleFired(
      r.origin,
      r.outcome,
      r.outcome === "started" && r.origin === "scheduled" ? Math.max(0, firedAt - r.dueAt) / 1000 : undefined,
    );
  return result;
}
