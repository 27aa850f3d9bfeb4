// Schedules (extension, docs/schedules.md): processes started on a calendar, exactly once per
// fire time on every replica.
import type { JsonSchema } from "../action-spec.js";
import { LIST_SORTS, listQuerySchema, pageEnvelopeSchema } from "../pagination.js";
import {
  anyJson,
  arrayOf,
  bool,
  dateTime,
  int,
  MAX_SPAN_MS,
  MAX_VERSION,
  processName,
  responseObject,
  str,
  strictObject,
} from "../schema.js";
import { action } from "./define.js";
import {
  EXAMPLE_FIRE,
  EXAMPLE_PAGE,
  EXAMPLE_VIEW,
  FIRE,
  NOT_FOUND,
  OVERLAP_POLICIES,
  SCHEDULE,
} from "./schedule-schemas.js";

const TAG = "schedules";
export const SCHEDULE_NAME_PATTERN = "^[a-z0-9][a-z0-9_.-]{0,127}$";

const NAME_PARAMS = strictObject(
  {
    name: str("Schedule name: lower-case letters, digits, `_`, `.`, `-`; at most 128.", {
      pattern: SCHEDULE_NAME_PATTERN,
    }),
  },
  ["name"],
);

const duration = (description: string): JsonSchema => ({
  description: `${description} A duration: \`"250ms"\`, \`"30s"\`, \`"2h30m"\`, \`"1d"\` or a number of milliseconds.`,
  anyOf: [
    { type: "string", minLength: 1, maxLength: 64 },
    { type: "integer", minimum: 0, maximum: MAX_SPAN_MS },
  ],
});

const SCHEDULE_BODY = strictObject(
  {
    process: processName("The process to start."),
    channel: str("Start the version this channel points at when the schedule fires.", {
      minLength: 1,
      maxLength: 128,
    }),
    version: int("Start this version. Without `channel` or `version`: the latest when it fires.", {
      minimum: 1,
      maximum: MAX_VERSION,
    }),
    cron: arrayOf(
      str("A cron expression: 5 fields, or 6 with seconds first; `L`, `W`, `#`, ranges, lists, steps, names.", {
        minLength: 1,
        maxLength: 256,
      }),
      "Cron expressions, read in `time_zone`; the schedule fires at the union of their times.",
      { maxItems: 10 },
    ),
    every: duration("A fixed interval, at least 1s, counted from `start_at` (else from the last create or replace)."),
    time_zone: str("IANA time zone of the cron expressions. Default `UTC`.", { minLength: 1, maxLength: 64 }),
    start_at: dateTime("No fire before this instant."),
    end_at: dateTime("No fire after this instant."),
    jitter: duration("Each fire is due up to this much after its fire time (at most 1h)."),
    input: anyJson(
      "A shape (templates and `$:` expressions) evaluated at each fire; it reads `schedule.name`, `schedule.fire_time`, `schedule.fire_ms`, `schedule.origin`. Default `{}`.",
    ),
    overlap: str("What a fire does while the previous run is live. Default `skip`.", {
      enum: [...OVERLAP_POLICIES],
    }),
    catchup_window: duration("Missed fires younger than this still run after downtime or a pause. Default `1m`."),
    paused: bool("Create (or keep) the schedule paused. Default false."),
  },
  ["process"],
  { title: "ScheduleBody" },
);

export const scheduleActions = [
  action({
    name: "putSchedule",
    method: "put",
    path: "/schedules/{name}",
    tag: TAG,
    extension: true,
    summary: "Create or replace a schedule",
    description:
      "Creates the schedule, or replaces its spec (its fires and last run are kept; its next fire is computed from now). " +
      "The input shape is type-checked against the target's `input_schema`, the calendar must fire after now. See docs/schedules.md.",
    permissions: ["deploy"],
    scope: { by: "schedule", param: "name" },
    params: NAME_PARAMS,
    body: SCHEDULE_BODY,
    responses: {
      200: {
        description: "The schedule as stored; `created` is false for a replace.",
        schema: {
          ...SCHEDULE,
          title: "SchedulePut",
          properties: { ...(SCHEDULE.properties as object), created: bool("A new schedule.") },
        },
      },
    },
    errors: [400, 409, 500],
    errorDescriptions: {
      400: "A field is invalid: a cron expression, the time zone, the calendar never fires, the target does not exist, or the input shape does not fit its `input_schema`.",
      409: "Creating it would pass `--limit-schedules`.",
    },
    example: {
      request: {
        params: { name: "nightly-report" },
        body: {
          process: "report",
          channel: "production",
          cron: ["0 2 * * *"],
          time_zone: "Europe/Berlin",
          input: { day: "$: schedule.fire_time" },
          catchup_window: "1h",
        },
      },
      response: { ...EXAMPLE_VIEW, created: true },
    },
  }),
  action({
    name: "listSchedules",
    method: "get",
    path: "/schedules",
    tag: TAG,
    extension: true,
    summary: "List schedules",
    description: "Every schedule, by name. Filter to one process with `process`.",
    permissions: ["read"],
    scope: { by: "list" },
    query: listQuerySchema(LIST_SORTS.schedules, { process: processName("Only schedules of this process.") }),
    responses: { 200: { description: "A page of schedules.", schema: pageEnvelopeSchema(SCHEDULE, "SchedulePage") } },
    errors: [400, 500],
    example: { request: { query: { process: "report" } }, response: { items: [EXAMPLE_VIEW], page: EXAMPLE_PAGE } },
  }),
  action({
    name: "getSchedule",
    method: "get",
    path: "/schedules/{name}",
    tag: TAG,
    extension: true,
    summary: "Show a schedule",
    description: "The schedule, its next fire times and its last 20 fires with their instances.",
    permissions: ["read"],
    scope: { by: "schedule", param: "name" },
    params: NAME_PARAMS,
    responses: { 200: { description: "The schedule.", schema: SCHEDULE } },
    errors: [400, 404, 500],
    errorDescriptions: NOT_FOUND,
    example: { request: { params: { name: "nightly-report" } }, response: { ...EXAMPLE_VIEW, fires: [] } },
  }),
  action({
    name: "deleteSchedule",
    method: "delete",
    path: "/schedules/{name}",
    tag: TAG,
    extension: true,
    summary: "Delete a schedule",
    description: "Deletes the schedule and its fire records; the instances it started are untouched.",
    permissions: ["deploy"],
    scope: { by: "schedule", param: "name" },
    params: NAME_PARAMS,
    responses: {
      200: {
        description: "Whether a schedule was deleted.",
        schema: responseObject({ deleted: bool("False when there was none.") }, ["deleted"]),
      },
    },
    errors: [400, 500],
    example: { request: { params: { name: "nightly-report" } }, response: { deleted: true } },
  }),
  ...(["pause", "resume"] as const).map((verb) =>
    action({
      name: verb === "pause" ? "pauseSchedule" : "resumeSchedule",
      method: "post",
      path: `/schedules/{name}/${verb}`,
      tag: TAG,
      extension: true,
      summary: verb === "pause" ? "Pause a schedule" : "Resume a schedule",
      description:
        verb === "pause"
          ? "A paused schedule fires nothing (trigger and backfill still work)."
          : "The fires missed while paused that are inside the catch-up window run at the next pass.",
      permissions: ["operate"],
      scope: { by: "schedule", param: "name" },
      params: NAME_PARAMS,
      responses: { 200: { description: "The schedule.", schema: SCHEDULE } },
      errors: [400, 404, 500],
      errorDescriptions: NOT_FOUND,
      example: {
        request: { params: { name: "nightly-report" } },
        response: { ...EXAMPLE_VIEW, paused: verb === "pause", fires: [] },
      },
    }),
  ),
  action({
    name: "triggerSchedule",
    method: "post",
    path: "/schedules/{name}/trigger",
    tag: TAG,
    extension: true,
    summary: "Fire a schedule now",
    description: "One fire now (origin `trigger`), under the overlap policy; answers the fire.",
    permissions: ["operate"],
    scope: { by: "schedule", param: "name" },
    params: NAME_PARAMS,
    responses: { 200: { description: "The fire.", schema: FIRE } },
    errors: [400, 404, 409, 500],
    errorDescriptions: { ...NOT_FOUND, 409: "The schedule was already triggered at this very millisecond." },
    example: { request: { params: { name: "nightly-report" } }, response: EXAMPLE_FIRE },
  }),
  action({
    name: "backfillSchedule",
    method: "post",
    path: "/schedules/{name}/backfill",
    tag: TAG,
    extension: true,
    summary: "Fire a schedule's past times",
    description:
      "Fires every calendar time in [`from`, `to`] that has not fired yet (origin `backfill`), whatever the overlap policy, in one transaction. " +
      "At most `--limit-schedule-backfill-fires` times; `to` may not be later than now.",
    permissions: ["operate"],
    scope: { by: "schedule", param: "name" },
    params: NAME_PARAMS,
    body: strictObject({ from: dateTime("First instant."), to: dateTime("Last instant.") }, ["from", "to"]),
    responses: {
      200: {
        description: "The fires recorded (times already fired are left out).",
        schema: responseObject({ fires: arrayOf(FIRE, "One per fire time recorded.") }, ["fires"]),
      },
    },
    errors: [400, 404, 500],
    errorDescriptions: NOT_FOUND,
    example: {
      request: {
        params: { name: "nightly-report" },
        body: { from: "2026-01-01T00:00:00.000Z", to: "2026-01-02T23:59:59.000Z" },
      },
      response: {
        fires: [
          { ...EXAMPLE_FIRE, fire_time: "2026-01-01T01:00:00.000Z", origin: "backfill" },
          { ...EXAMPLE_FIRE, fire_time: "2026-01-02T01:00:00.000Z", origin: "backfill" },
        ],
      },
    },
  }),
];
