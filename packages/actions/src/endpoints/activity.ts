// GET /instances/activity (extension, docs/api.md "Activity over time"): how many roots
// completed, failed and raised in each slice of the last hour, day or week, per process: the
// home page's chart of what went wrong and since when.

import { arrayOf, bool, dateTime, int, processName, responseObject, str, strictObject } from "../schema.js";
import { action } from "./define.js";

/** The settled statuses the activity counts, in the order a chart stacks them. */
export const ACTIVITY_STATUSES = ["completed", "failed", "raised"] as const;

/** Each window and the width of its slices: 60 slices an hour, 48 a day, 42 a week. */
export const ACTIVITY_WINDOWS = {
  hour: { ms: 3_600_000, bucketMs: 60_000 },
  day: { ms: 86_400_000, bucketMs: 1_800_000 },
  week: { ms: 604_800_000, bucketMs: 14_400_000 },
} as const;
export type ActivityWindow = keyof typeof ACTIVITY_WINDOWS;

/** At most this many (process, status, slice) groups in one answer; `truncated` says more exist. */
export const ACTIVITY_GROUPS_MAX = 10_000;

export const activityActions = [
  action({
    name: "instanceActivity",
    method: "get",
    path: "/instances/activity",
    tag: "instances",
    extension: true,
    summary: "Completions, failures and raises over time",
    description:
      "How many roots settled as `completed`, `failed` or `raised` in each slice of the last `window` (`hour`: 60 slices of a minute, `day`: 48 of 30 minutes, `week`: 42 of 4 hours), per process. " +
      "A root counts in the slice of its `updated_at`, the instant it settled (a root retried since counts where it is now). Slices are aligned to the slice width (UTC) and the last one holds now. " +
      `Only non-empty groups are returned, ordered by slice, process and status; at most ${ACTIVITY_GROUPS_MAX} (\`truncated\`). ` +
      'An index-only scan of `instances_settled_idx` over the window (docs/api.md "Activity over time").',
    permissions: ["read"],
    scope: { by: "list" },
    query: strictObject({
      window: str("The time span: `hour`, `day` or `week`.", {
        enum: Object.keys(ACTIVITY_WINDOWS),
        default: "day",
      }),
      process: processName("Only this process."),
    }),
    responses: {
      200: {
        description: "The counts per slice.",
        schema: responseObject(
          {
            window: str("The window asked for.", { enum: Object.keys(ACTIVITY_WINDOWS) }),
            bucket_ms: int("The width of one slice, in ms.", { minimum: 1 }),
            from: dateTime("The start of the first slice (ISO 8601 UTC)."),
            to: dateTime("The end of the last slice (ISO 8601 UTC), after now."),
            groups: arrayOf(
              responseObject(
                {
                  at: dateTime("The start of the slice (ISO 8601 UTC)."),
                  process: str("Process name."),
                  status: str("The settled status.", { enum: [...ACTIVITY_STATUSES] }),
                  count: int("Roots that settled so in this slice.", { minimum: 1 }),
                },
                ["at", "process", "status", "count"],
                { title: "ActivityGroup" },
              ),
              "The non-empty groups, ordered by slice, process and status.",
            ),
            truncated: bool(`More than ${ACTIVITY_GROUPS_MAX} groups matched; only the first are returned.`),
          },
          ["window", "bucket_ms", "from", "to", "groups", "truncated"],
          { title: "InstanceActivity" },
        ),
      },
    },
    errors: [400, 500],
    example: {
      request: { query: { window: "hour", process: "order-fulfilment" } },
      response: {
        window: "hour",
        bucket_ms: 60_000,
        from: "2026-01-02T09:01:00.000Z",
        to: "2026-01-02T10:01:00.000Z",
        groups: [
          { at: "2026-01-02T09:58:00.000Z", process: "order-fulfilment", status: "completed", count: 41 },
          { at: "2026-01-02T09:58:00.000Z", process: "order-fulfilment", status: "failed", count: 3 },
        ],
        truncated: false,
      },
    },
  }),
];
