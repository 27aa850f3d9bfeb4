// Pruning fire records (docs/schedules.md "Bounds"): a sweep over the schedules in name order,
// SWEEP_SCHEDULES at a time, keeps each one's newest --limit-schedule-fires-kept records. The
// newest calendar fire time it deletes moves the schedule's pruned_through, below which a
// backfill is refused: without its record, a fire time could fire twice.
import { sql } from "drizzle-orm";
import { type Db, inTransaction, rowsOf } from "../../storage/db.js";
import { sqlTextArray } from "../../storage/sql-arrays.js";

/** Schedules one sweep step looks at. */
export const SWEEP_SCHEDULES = 100;

/** One step: the schedules after `after` (by name); returns where the next step starts ("" = from the top) and rows pruned. */
export async function pruneFires(db: Db, after: string, kept: number): Promise<{ next: string; pruned: number }> {
  return inTransaction(db, async (tx) => {
    const names = rowsOf<{ name: string }>(
      // Locked like a backfill locks its schedule, so a backfill's pruned_through check and this
      // step's deletes never interleave; a schedule a pass holds is skipped until the next sweep.
      await tx.execute(sql`
        SELECT name FROM schedules WHERE name > ${after} ORDER BY name LIMIT ${SWEEP_SCHEDULES} FOR UPDATE SKIP LOCKED`),
    ).map((r) => r.name);
    if (names.length === 0) return { next: "", pruned: 0 };
    const deleted = rowsOf<{ schedule: string; fire_at: number | string; side: string }>(
      await tx.execute(sql`
        DELETE FROM schedule_fires f
        USING (
          SELECT c.name, (SELECT id FROM schedule_fires WHERE schedule = c.name ORDER BY id DESC OFFSET ${kept} LIMIT 1) AS cut
          FROM unnest(${sqlTextArray(names)}) AS c(name)
        ) k
        WHERE f.schedule = k.name AND k.cut IS NOT NULL AND f.id <= k.cut
        RETURNING f.schedule, f.fire_at, f.side`),
    );
    const through = new Map<string, number>();
    for (const row of deleted)
      if (row.side === "calendar")
        through.set(row.schedule, Math.max(through.get(row.schedule) ?? 0, Number(row.fire_at)));
    if (through.size > 0)
      await tx.execute(sql`
        UPDATE schedules s SET pruned_through = GREATEST(COALESCE(s.pruned_through, 0), p.through)
        FROM jsonb_to_recordset(${JSON.stringify([...through].map(([name, at]) => ({ name, through: at })))}::jsonb)
          AS p(name text, through bigint)
        WHERE s.name = p.name`);
    return { next: names.length < SWEEP_SCHEDULES ? "" : names.at(-1)!, pruned: deleted.length };
  });
}
