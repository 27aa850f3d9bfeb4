// A schedule row as the engine reads it, and its spec read once per version of the row.
import { parseJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import type { Db } from "../../storage/db.js";
import { perDbCache } from "../../storage/per-db-cache.js";
import type { FireState } from "./fire.js";
import { type ReadSpec, readSpec, type StoredSpec } from "./spec.js";

/** The columns SCHEDULE_COLUMNS selects (`s` the schedule, `i` its last instance, joined). */
export interface ScheduleRow {
  name: string;
  process: string;
  channel: string | null;
  version: number | null;
  spec: string;
  paused: boolean;
  next_fire_at: number | string | null;
  next_due_at: number | string | null;
  buffered_fire_at: number | string | null;
  last_instance_id: string | null;
  last_status: string | null;
  pruned_through: number | string | null;
  actor: string | null;
  created_at: number | string;
  updated_at: number | string;
}

export const SCHEDULE_COLUMNS = sql.raw(
  "s.name, s.process, s.channel, s.version, s.spec, s.paused, s.next_fire_at, s.next_due_at, s.buffered_fire_at, " +
    "s.last_instance_id, i.status AS last_status, s.pruned_through, s.actor, s.created_at, s.updated_at",
);

// A spec is read (its cron expressions compiled) once per (name, stored text). Bounded at twice
// the default --limit-schedules: past that many entries the map starts again.
const specs = perDbCache<ReadSpec>();
const MAX_KEPT_SPECS = 20_000;

export function specOfRow(db: Db, row: Pick<ScheduleRow, "name" | "spec" | "updated_at">): ReadSpec {
  const cache = specs(db);
  const key = `${row.name}\u0000${row.spec}`;
  let spec = cache.get(key);
  if (spec === undefined) {
    spec = readSpec(parseJson(row.spec) as unknown as StoredSpec);
    if (cache.size >= MAX_KEPT_SPECS) cache.clear();
    cache.set(key, spec);
  }
  return spec;
}

/** What the fires of a locked schedule start from. */
export function lockedScheduleState(db: Db, row: ScheduleRow): FireState {
  return {
    name: row.name,
    target: { process: row.process, channel: row.channel, version: row.version === null ? null : Number(row.version) },
    spec: specOfRow(db, row),
    lastInstanceId: row.last_instance_id,
    lastStatus: row.last_instance_id === null ? null : row.last_status,
    bufferedFireAt: row.buffered_fire_at === null ? null : Number(row.buffered_fire_at),
  };
}

export function msOrNull(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}
