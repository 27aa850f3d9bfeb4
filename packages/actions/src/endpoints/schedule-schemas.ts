// The response schemas and worked examples of the schedule actions (schedules.ts).
import { anyJson, arrayOf, bool, dateTime, int, nullable, responseObject, str } from "../schema.js";

export const OVERLAP_POLICIES = ["skip", "buffer_one", "allow_all", "cancel_previous"] as const;
export const FIRE_OUTCOMES = ["started", "skipped", "buffered", "failed", "missed"] as const;

export const FIRE = responseObject(
  {
    fire_time: dateTime("The fire time (nominal; jitter moves only when it is due)."),
    origin: str("scheduled, trigger or backfill.", { enum: ["scheduled", "trigger", "backfill"] }),
    outcome: str("What the fire did.", { enum: [...FIRE_OUTCOMES] }),
    instance_id: nullable(str("The instance it started.")),
    instance_status: nullable(str("That instance's status now (null when none, or pruned).")),
    reason: nullable(str("Why it skipped, buffered, failed or was missed.")),
    due_at: dateTime("When it was due."),
    fired_at: dateTime("When it was recorded."),
  },
  ["fire_time", "origin", "outcome", "instance_id", "reason"],
  { title: "ScheduleFire" },
);

export const SCHEDULE = responseObject(
  {
    name: str("Schedule name."),
    process: str("The process it starts."),
    channel: nullable(str("The channel whose version it starts.")),
    version: nullable(int("The fixed version it starts.")),
    cron: arrayOf(str("A cron expression."), "Its cron expressions."),
    every: anyJson("Its interval, as written (null when none)."),
    time_zone: str("Its time zone."),
    start_at: nullable(dateTime("No fire before.")),
    end_at: nullable(dateTime("No fire after.")),
    jitter: anyJson("Its jitter, as written (null when none)."),
    input: anyJson("Its input shape."),
    overlap: str("Its overlap policy.", { enum: [...OVERLAP_POLICIES] }),
    catchup_window: anyJson("Its catch-up window, as written."),
    paused: bool("Paused: fires nothing."),
    next_fire_times: arrayOf(dateTime("A fire time."), "The next (up to 5) fire times; empty when none is left."),
    buffered_fire_time: nullable(dateTime("The fire waiting for the previous run to end (`buffer_one`).")),
    last_instance_id: nullable(str("The instance it last started.")),
    last_instance_status: nullable(str("That instance's status.")),
    actor: nullable(str("Who last created or replaced it.")),
    created_at: dateTime("Created."),
    updated_at: dateTime("Last changed (replace, pause, resume)."),
    fires: arrayOf(FIRE, "The single view only: the last 20 fires, newest first."),
  },
  ["name", "process", "cron", "time_zone", "overlap", "paused", "next_fire_times"],
  { title: "Schedule" },
);

export const EXAMPLE_VIEW = {
  name: "nightly-report",
  process: "report",
  channel: "production",
  version: null,
  cron: ["0 2 * * *"],
  every: null,
  time_zone: "Europe/Berlin",
  start_at: null,
  end_at: null,
  jitter: null,
  input: { day: "$: schedule.fire_time" },
  overlap: "skip",
  catchup_window: "1h",
  paused: false,
  next_fire_times: ["2026-01-03T01:00:00.000Z", "2026-01-04T01:00:00.000Z"],
  buffered_fire_time: null,
  last_instance_id: null,
  last_instance_status: null,
  actor: "token:01J9Z3",
  created_at: "2026-01-02T10:00:00.000Z",
  updated_at: "2026-01-02T10:00:00.000Z",
};

export const NOT_FOUND = { 404: "No schedule of that name." };

export const EXAMPLE_FIRE = {
  fire_time: "2026-01-03T01:00:00.000Z",
  origin: "trigger",
  outcome: "started",
  instance_id: "0194a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
  reason: null,
  due_at: "2026-01-03T01:00:00.000Z",
};
export const EXAMPLE_PAGE = {
  size: 20,
  items_before: 0,
  items_after: 0,
  sort: "name",
  order: "asc",
  next_cursor: null,
  previous_cursor: null,
};
