// How a schedule reads in the API (docs/schedules.md "The resource"): its spec as written, the
// next fire times and, for the single view, its last fires.
import type { Json } from "@baton/expr";
import { sql } from "drizzle-orm";
import { iso, isoOrNull } from "../../format.js";
import { type Db, rowsOf } from "../../storage/db.js";
import { nextFireTimes } from "./calendar.js";
import type { FireOutcome } from "./fire.js";
import type { FireOrigin } from "./spec.js";
import { msOrNull, type ScheduleRow, specOfRow } from "./rows.js";

/** Next fire times a view shows; last fires the single view shows. */
export const NEXT_FIRES_SHOWN = 5;
export const LAST_FIRES_SHOWN = 20;

export function scheduleView(db: Db, row: ScheduleRow) {
  const spec = specOfRow(db, row);
  const s = spec.stored;
  const next = msOrNull(row.next_fire_at);
  const upcoming = next === null ? [] : [next, ...nextFireTimes(spec.calendar, next, NEXT_FIRES_SHOWN - 1)];
  return {
    name: row.name,
    process: row.process,
    channel: row.channel,
    version: row.version === null ? null : Number(row.version),
    cron: s.cron,
    every: s.every,
    time_zone: s.time_zone,
    start_at: isoOrNull(s.start_at),
    end_at: isoOrNull(s.end_at),
    jitter: s.jitter,
    input: s.input,
    overlap: s.overlap,
    catchup_window: s.catchup_window,
    paused: row.paused,
    next_fire_times: upcoming.map(iso),
    buffered_fire_time: isoOrNull(msOrNull(row.buffered_fire_at)),
    last_instance_id: row.last_instance_id,
    last_instance_status: row.last_instance_id === null ? null : row.last_status,
    actor: row.actor,
    created_at: iso(Number(row.created_at)),
    updated_at: iso(Number(row.updated_at)),
  };
}

export interface FireView {
  fire_time: string;
  origin: FireOrigin;
  outcome: FireOutcome;
  instance_id: string | null;
  instance_status: string | null;
  reason: string | null;
  due_at: string;
  fired_at: string;
}

/** The last fires of a schedule, newest first, with their instances' statuses now. */
export async function lastFires(db: Db, schedule: string, limit = LAST_FIRES_SHOWN): Promise<FireView[]> {
  const rows = rowsOf<{
    fire_at: number | string;
    origin: FireOrigin;
    outcome: FireOutcome;
    instance_id: string | null;
    status: string | null;
    reason: string | null;
    due_at: number | string;
    fired_at: number | string;
  }>(
    await db.execute(sql`
      SELECT f.fire_at, f.origin, f.outcome, f.instance_id, i.status, f.reason, f.due_at, f.fired_at
      FROM schedule_fires f LEFT JOIN instances i ON i.id = f.instance_id
      WHERE f.schedule = ${schedule} ORDER BY f.id DESC LIMIT ${limit}`),
  );
  return rows.map((r) => ({
    fire_time: iso(Number(r.fire_at)),
    origin: r.origin,
    outcome: r.outcome,
    instance_id: r.instance_id,
    instance_status: r.status,
    reason: r.reason,
    due_at: iso(Number(r.due_at)),
    fired_at: iso(Number(r.fired_at)),
  }));
}

export type ScheduleView = ReturnType<typeof scheduleView> & { input: Json };
