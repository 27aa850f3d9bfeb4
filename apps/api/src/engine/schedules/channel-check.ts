// Channel moves and the schedules bound to the channel (docs/schedules.md "Checked before it
// runs"): which of them would start a version whose input_schema refuses their input.
import type { Definition } from "@baton/model";
import { sql } from "drizzle-orm";
import { type Db, rowsOf } from "../../storage/db.js";
import { type ScheduleRow, specOfRow } from "./rows.js";
import { inputShapeProblems } from "./spec.js";

export interface ScheduleWarning {
  schedule: string;
  process: string;
  channel: string;
  /** The version the schedule would start; null for an unsaved definition. */
  version: number | null;
  message: string;
}

/** The processes that schedules bound to `channel` start. */
export async function scheduledOnChannel(db: Db, channel: string): Promise<Set<string>> {
  const rows = rowsOf<{ process: string }>(
    await db.execute(sql`SELECT DISTINCT process FROM schedules WHERE channel = ${channel}`),
  );
  return new Set(rows.map((r) => r.process));
}

/** Every schedule bound to `channel` whose input the version it would start (`next`) refuses. */
export async function scheduleWarnings(
  db: Db,
  channel: string,
  next: Map<string, { definition: Definition; version: number | null }>,
): Promise<ScheduleWarning[]> {
  if (next.size === 0) return [];
  const rows = rowsOf<Pick<ScheduleRow, "name" | "process" | "spec" | "updated_at">>(
    await db.execute(
      sql`SELECT name, process, spec, updated_at FROM schedules WHERE channel = ${channel} ORDER BY name`,
    ),
  );
  const warnings: ScheduleWarning[] = [];
  for (const row of rows) {
    const target = next.get(row.process);
    if (target === undefined) continue;
    const problems = inputShapeProblems(specOfRow(db, row).input, target.definition, target.version ?? 0);
    if (problems.length === 0) continue;
    const which = target.version === null ? "the new definition" : `version ${target.version}`;
    warnings.push({
      schedule: row.name,
      process: row.process,
      channel,
      version: target.version,
      message:
        `schedule "${row.name}" would start ${which} of "${row.process}" on "${channel}" with an input it refuses: ` +
        problems.map((p) => `${p.path}: ${p.message}`).join("; "),
    });
  }
  return warnings;
}
