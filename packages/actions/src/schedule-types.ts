// Request and response types of the schedule actions (docs/schedules.md), for the typed client.
import type { Json as JsonValue } from "@baton/expr";

export type OverlapPolicy = "skip" | "buffer_one" | "allow_all" | "cancel_previous";
export type FireOutcome = "started" | "skipped" | "buffered" | "failed" | "missed";

export interface ScheduleBody {
  process: string;
  channel?: string;
  version?: number;
  cron?: string[];
  every?: string | number;
  time_zone?: string;
  start_at?: string;
  end_at?: string;
  jitter?: string | number;
  input?: JsonValue;
  overlap?: OverlapPolicy;
  catchup_window?: string | number;
  paused?: boolean;
}

export interface ScheduleFire {
  fire_time: string;
  origin: "scheduled" | "trigger" | "backfill";
  outcome: FireOutcome;
  instance_id: string | null;
  instance_status?: string | null;
  reason: string | null;
  due_at?: string;
  fired_at?: string;
}

export interface Schedule {
  name: string;
  process: string;
  channel: string | null;
  version: number | null;
  cron: string[];
  every: string | number | null;
  time_zone: string;
  start_at: string | null;
  end_at: string | null;
  jitter: string | number | null;
  input: JsonValue;
  overlap: OverlapPolicy;
  catchup_window: string | number;
  paused: boolean;
  next_fire_times: string[];
  buffered_fire_time: string | null;
  last_instance_id: string | null;
  last_instance_status: string | null;
  actor: string | null;
  created_at: string;
  updated_at: string;
  /** The single view only. */
  fires?: ScheduleFire[];
}

export interface ListSchedulesQuery {
  process?: string;
  sort?: "name";
  order?: "asc" | "desc";
  limit?: number;
  after?: string;
  before?: string;
}

/** A schedule a channel move would start with an input its new version refuses (compat's `schedule_warnings`). */
export interface ScheduleWarning {
  schedule: string;
  process: string;
  channel: string;
  version: number | null;
  message: string;
}
