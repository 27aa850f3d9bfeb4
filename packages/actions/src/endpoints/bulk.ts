// POST /instances/bulk/{verb} (extension, docs/api.md "Bulk verbs"): one lifecycle verb over the
// roots the list filters select, a bounded batch per call, continued with a cursor.
import type { JsonSchema } from "../action-spec.js";
import type { Permission } from "../action-spec.js";
import { arrayOf, bool, int, nullable, responseObject, str, strictObject, MAX_VERSION } from "../schema.js";
import { action } from "./define.js";
import { INSTANCE_FILTERS } from "./instances.js";
import { RESET_FORCE, RESET_PAUSED, RESET_TASK } from "./reset.js";

/** Roots one bulk call acts on at most (`limit`). */
export const BULK_LIMIT = { min: 1, max: 1000, default: 100 } as const;
export const BULK_VERBS = ["pause", "resume", "cancel", "retry", "upgrade", "reset"] as const;
export type BulkVerb = (typeof BULK_VERBS)[number];

// The list filters minus the tree ones: a bulk verb acts on roots, like the single verb.
const { children: _children, parent_id: _parent, ...ROOT_FILTERS } = INSTANCE_FILTERS;

const OUTCOMES: Record<BulkVerb, string[]> = {
  pause: ["paused", "pausing", "unchanged"],
  resume: ["resumed", "unchanged", "refused"],
  cancel: ["cancelled", "cancelling", "unchanged"],
  retry: ["retried", "refused"],
  upgrade: ["upgraded", "unchanged", "refused"],
  reset: ["reset", "refused"],
};

const SINGLE: Record<BulkVerb, string> = {
  pause: "POST /instances/{id}/pause",
  resume: "POST /instances/{id}/resume",
  cancel: "POST /instances/{id}/cancel",
  retry: "POST /instances/{id}/retry",
  upgrade: "POST /instances/{id}/upgrade",
  reset: "POST /instances/{id}/reset",
};

/** The action of each bulk verb: the one map of verb to action the CLI and the UI call through. */
export const BULK_ACTIONS = {
  pause: "bulkPauseInstances",
  resume: "bulkResumeInstances",
  cancel: "bulkCancelInstances",
  retry: "bulkRetryInstances",
  upgrade: "bulkUpgradeInstances",
  reset: "bulkResetInstances",
} as const;

const RESULT_SCHEMA = responseObject(
  {
    dry_run: bool("True: nothing was changed; `matched` lists what a real call would act on."),
    counts: {
      type: "object",
      description: "Outcome → how many roots got it in this call (`matched` for a dry run).",
      additionalProperties: { type: "integer", minimum: 0 },
    },
    ids: {
      type: "object",
      description: "Outcome → the root ids that got it in this call, in id order.",
      additionalProperties: { type: "array", items: { type: "string" } },
    },
    refused: arrayOf(
      responseObject(
        {
          id: str("The root."),
          code: str("The ApiCode the single verb would have answered (`conflict`, `not_found`…)."),
          error: str("Why, as the single verb says it."),
        },
        ["id", "code", "error"],
      ),
      "The roots the verb refused, with the reason (also counted as `refused`).",
    ),
    next_cursor: nullable(
      str("More roots may match: pass this as `cursor` (with the same filters) to continue; null when done."),
    ),
  },
  ["dry_run", "counts", "ids", "refused", "next_cursor"],
  { title: "BulkResult" },
);

function bulkAction(verb: BulkVerb, permission: Permission, extra: Record<string, JsonSchema>, required: string[]) {
  return action({
    name: BULK_ACTIONS[verb],
    method: "post",
    path: `/instances/bulk/${verb}`,
    tag: "instances",
    extension: true,
    summary: `${verb[0]!.toUpperCase()}${verb.slice(1)} every root the filters select`,
    description:
      `Runs \`${SINGLE[verb]}\` on each root instance the filters select (the filters of \`GET /instances\`; roots only), in id order, at most \`limit\` roots per call ` +
      `(${BULK_LIMIT.min} to ${BULK_LIMIT.max}, default ${BULK_LIMIT.default}); \`next_cursor\` continues. Each root is one transaction with exactly the single verb's rules and log line (with the caller as actor): ` +
      `a root the verb refuses is reported under \`refused\`, not fatal. Outcomes: ${OUTCOMES[verb].join(", ")}. ` +
      "With `dry_run: true` nothing changes and `matched` lists the roots a real call would take.",
    permissions: [permission],
    scope: { by: "list" },
    body: strictObject(
      {
        ...ROOT_FILTERS,
        ...extra,
        dry_run: bool("Change nothing; list the roots a real call would act on (`matched`)."),
        limit: int(
          `Roots this call acts on at most, ${BULK_LIMIT.min} to ${BULK_LIMIT.max}, default ${BULK_LIMIT.default}.`,
          {
            minimum: BULK_LIMIT.min,
            maximum: BULK_LIMIT.max,
            default: BULK_LIMIT.default,
          },
        ),
        cursor: str("The `next_cursor` of the previous call (same verb and filters).", { minLength: 1 }),
      },
      required,
    ),
    bodyOptional: required.length === 0,
    responses: { 200: { description: "What this call did.", schema: RESULT_SCHEMA } },
    errors: [400, 500],
    example: {
      request: {
        body: {
          status: "failed",
          error_code: "http.503",
          limit: 100,
          ...(verb === "upgrade" ? { from_version: 3, to_version: 4 } : {}),
          ...(verb === "reset" ? { task: "charge", to_task: "reserve" } : {}),
        },
      },
      response: {
        dry_run: false,
        counts: { [OUTCOMES[verb][0]!]: 2, refused: 0 },
        ids: { [OUTCOMES[verb][0]!]: ["019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55", "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c56"] },
        refused: [],
        next_cursor: null,
      },
    },
  });
}

// Before the per-id verbs: the router tries routes in registry order, and
// /instances/{id}/pause would take "bulk" as an id.
export const bulkActions = [
  bulkAction("pause", "operate", {}, []),
  bulkAction("resume", "operate", {}, []),
  bulkAction("cancel", "operate", {}, []),
  bulkAction(
    "retry",
    "operate",
    { force: bool("Retry roots that failed on an only_once task too (as `retry?force=true`).") },
    [],
  ),
  bulkAction(
    "upgrade",
    "deploy",
    {
      from_version: int("Only roots at this version; the version the trees run now.", {
        minimum: 1,
        maximum: MAX_VERSION,
      }),
      to_version: int("The version to move them to.", { minimum: 1, maximum: MAX_VERSION }),
    },
    ["from_version", "to_version"],
  ),
  bulkAction("reset", "operate", { to_task: RESET_TASK, force: RESET_FORCE, paused: RESET_PAUSED }, ["to_task"]),
];
