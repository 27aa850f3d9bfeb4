// Over 300 lines on purpose: every external-task action's spec as declarative data; claim, renew,
// release, resolve, signal and the waiting list share the task and outcome schemas defined here.
import type { JsonSchema } from "../action-spec.js";
import {
  AUTHORED_CODE_PATTERN,
  anyJson,
  arrayOf,
  bool,
  dateTime,
  int,
  nullable,
  openObject,
  processName,
  responseObject,
  str,
  strictObject,
  MAX_VERSION,
} from "../schema.js";
import { LIST_SORTS, listQuerySchema, pageEnvelopeSchema } from "../pagination.js";
import { action } from "./define.js";

const TAG = "external-tasks";

export const CLAIM_LIMIT = { min: 1, max: 100, default: 1 } as const;
/**
 * How long a worker's claim holds unless renewed (the `lease_ms` field): a claim on an external
 * task, never the engine's own instance lease (apps/api engine/statuses.ts LEASE_MS).
 */
export const CLAIM_MS = { min: 1000, max: 600_000, default: 30_000 } as const;
/** Resolve-batch (an extension, docs/api.md "Extensions"): outcomes per call. */
export const RESOLVE_BATCH_ITEMS = { min: 1, max: 100 } as const;
/** Claim long-poll (an extension, docs/api.md "Extensions"): how long an empty claim may wait. */
export const CLAIM_WAIT_MS = { min: 0, max: 60_000, default: 0 } as const;

function leaseMs(description: string): JsonSchema {
  return int(`${description} ${CLAIM_MS.min} to ${CLAIM_MS.max}, default ${CLAIM_MS.default}.`, {
    minimum: CLAIM_MS.min,
    maximum: CLAIM_MS.max,
    default: CLAIM_MS.default,
  });
}

const CLAIM_TOKEN = str("The claim token returned by claim.", { minLength: 1 });
const WORKER_ID = str("A stable id of the worker process, shown as `claimed_by`.", { minLength: 1, maxLength: 200 });

/** A visit's `task_epoch` is stored as a 32-bit integer. */
const TASK_EPOCH_BOUNDS = { minimum: 0, maximum: 2_147_483_647 };

export const EXTERNAL_TASK_SCHEMA = responseObject(
  {
    token: str("The only handle accepted while the claim is live (renew, release, resolve)."),
    process: str("Process name."),
    version: int("Process version.", { minimum: 1, maximum: MAX_VERSION }),
    task: str("Task id."),
    external_input: anyJson("The evaluated `input` of the external action: what the worker works on."),
    result_schema: openObject("JSON Schema the `result` of resolve must match (`{}` when the task declares none)."),
    raises: {
      type: "object",
      description: "Error codes the task accepts in an `error` outcome → the schema of `error.data` (null: no data).",
      additionalProperties: {
        type: ["object", "null"],
        additionalProperties: {},
        description: "Schema of `error.data`, or null.",
      },
    },
    waiting_since: dateTime("When the task parked (ISO 8601 UTC)."),
    deadline: nullable(
      dateTime("When the wait times out with `external.timeout` (ISO 8601 UTC); null without a timeout."),
    ),
    claimed_by: str("The worker id holding the claim."),
    claim_expires: dateTime("When the claim lapses unless renewed (ISO 8601 UTC)."),
    instance_id: str("**Extension.** The instance waiting on this task."),
    root_id: str("**Extension.** The root of its tree."),
    key: nullable(
      str(
        "**Extension.** The business key of the instance's tree (its root's `key`, docs/api.md \"Business keys\"); null when none was given.",
      ),
    ),
    task_epoch: int(
      "**Extension.** The visit of the task: with `instance_id`, a stable idempotency key for the worker's own side effects (the same for every claim and every on_error retry of this visit, new on the next visit; a fetch task sends `Idempotency-Key: <instance_id>:<task_epoch>`).",
      TASK_EPOCH_BOUNDS,
    ),
    attempt: int(
      "**Extension.** Which attempt of this visit the task is: 1, plus the on_error retries scheduled in it (the instance's `retry_count`).",
      { minimum: 1 },
    ),
    traceparent: {
      type: "string",
      pattern: "^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$",
      description:
        "**Extension.** The W3C `traceparent` of the waiting instance's trace (docs/tracing.md \"Workers\"): a worker starts its handler's span as a child of it. Absent while the server does not trace.",
    },
  },
  [
    "token",
    "process",
    "version",
    "task",
    "external_input",
    "result_schema",
    "raises",
    "waiting_since",
    "deadline",
    "claimed_by",
    "claim_expires",
    "instance_id",
    "root_id",
    "key",
    "task_epoch",
    "attempt",
  ],
  { title: "ExternalTask" },
);

const ERROR_OUTCOME = strictObject(
  {
    code: str("One of the task's declared `raises` codes (lower_snake_case).", { pattern: AUTHORED_CODE_PATTERN }),
    message: str("What happened, for a person."),
    data: anyJson("Details matching the schema declared for `code` (omit when it declares null)."),
  },
  ["code"],
  { description: "An error outcome: routed through the task's on_error rules with `error.data` set." },
);

/** `verb` names the two component schemas (`ResolveResult`, `ResolveError`…): each endpoint has its own handle fields. */
function outcomeBody(verb: string, handle: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return {
    description:
      "Either a `result` (validated and conformed against the task's `result_schema`) or an `error` outcome; not both.",
    oneOf: [
      strictObject({ ...handle, result: anyJson("The task's result; must match its `result_schema`.") }, required, {
        title: `${verb}Result`,
      }),
      strictObject({ ...handle, error: ERROR_OUTCOME }, [...required, "error"], { title: `${verb}Error` }),
    ],
  };
}

const SAMPLE_TOKEN = "ext_01J9Z4K2QX8M";

/** One resolve's body: the body of resolve and each item of resolve-batch. */
const RESOLVE_BODY = outcomeBody("Resolve", { token: CLAIM_TOKEN }, ["token"]);

export const externalTaskActions = [
  action({
    name: "listExternalTasks",
    method: "get",
    path: "/external-tasks",
    tag: TAG,
    extension: true,
    summary: "List waiting external tasks",
    description:
      "The human-task queue, read-only: every external task an instance waits on now (claimed or not), oldest park first. Nothing is claimed. " +
      "Filters combine with AND: `process`, `version`, `task` (pair with `process`), `claimed` (true: a live claim holds it; false: claimable now), `instance_id`. " +
      "`external_input` is shown with the server's secret values redacted, as instance state is. Sort key: `waiting_since` (default asc).",
    permissions: ["read"],
    scope: { by: "list" },
    query: listQuerySchema(LIST_SORTS.externalTasks, {
      process: processName("Only tasks of this process."),
      version: int("Only tasks of this process version.", { minimum: 1, maximum: MAX_VERSION }),
      task: str("Only this task id (pair with `process`).", { minLength: 1 }),
      claimed: bool("true: only tasks a live claim holds; false: only tasks claimable now."),
      instance_id: str("Only the task of this instance.", { minLength: 1 }),
    }),
    responses: {
      200: {
        description: "A page of waiting tasks.",
        schema: pageEnvelopeSchema(
          responseObject(
            {
              instance_id: str("The waiting instance."),
              root_id: str("The root of its tree."),
              key: nullable(
                str("**Extension.** The business key of the tree (its root's `key`); null when none was given."),
              ),
              process: str("Process name."),
              version: int("Process version.", { minimum: 1, maximum: MAX_VERSION }),
              task: str("Task id."),
              status: str("The instance's status (`running`, or `paused`/`pausing` while it waits paused)."),
              external_input: anyJson("The evaluated `input` of the external action (secrets redacted)."),
              waiting_since: dateTime("When the task parked (ISO 8601 UTC)."),
              task_epoch: int(
                'The visit: the instance\'s `task_epoch` while it waits here. Pass it to signal to answer this visit only (docs/api.md "Signal only if waiting").',
                TASK_EPOCH_BOUNDS,
              ),
              deadline: nullable(dateTime("When the wait times out with `external.timeout`; null without a timeout.")),
              claimed_by: nullable(str("The worker holding a live claim; null when claimable.")),
              claim_expires: nullable(dateTime("When that claim lapses unless renewed; null when claimable.")),
            },
            [
              "instance_id",
              "root_id",
              "key",
              "process",
              "version",
              "task",
              "status",
              "external_input",
              "waiting_since",
              "task_epoch",
              "deadline",
              "claimed_by",
              "claim_expires",
            ],
            { title: "WaitingExternalTask" },
          ),
          "WaitingExternalTaskPage",
        ),
      },
    },
    errors: [400, 500],
    example: {
      request: { query: { process: "order-fulfilment", claimed: false, limit: 1 } },
      response: {
        items: [
          {
            instance_id: "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55",
            root_id: "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55",
            key: "A-1001",
            process: "order-fulfilment",
            version: 3,
            task: "approve",
            status: "running",
            external_input: { order_id: "A-1001", amount: "129.90" },
            waiting_since: "2026-01-02T10:00:05.000Z",
            task_epoch: 4,
            deadline: "2026-01-03T10:00:05.000Z",
            claimed_by: null,
            claim_expires: null,
          },
        ],
        page: {
          size: 1,
          items_before: 0,
          items_after: 4,
          sort: "waiting_since",
          order: "asc",
          next_cursor: "eyJsIjoiZXh0ZXJuYWwt",
          previous_cursor: null,
        },
      },
    },
  }),
  action({
    name: "claimExternalTasks",
    method: "post",
    path: "/external-tasks/claim",
    tag: TAG,
    summary: "Claim waiting external tasks",
    description:
      "Leases up to `limit` parked tasks without a live claim, oldest park first, optionally only of `process`, `task` and `version`. " +
      `\`limit\` is ${CLAIM_LIMIT.min} to ${CLAIM_LIMIT.max} (default ${CLAIM_LIMIT.default}); \`lease_ms\` is ${CLAIM_MS.min} to ${CLAIM_MS.max} (default ${CLAIM_MS.default}). ` +
      "Renew every claim within `renew_before_ms` (`POST /external-tasks/renew`): renewal is the only way a worker learns that its task was cancelled or lost. An empty `items` means nothing is waiting. " +
      `Extension: \`wait_ms\` (${CLAIM_WAIT_MS.min} to ${CLAIM_WAIT_MS.max}, default ${CLAIM_WAIT_MS.default}) long-polls: when nothing matches, the call waits up to that long for a task to park (or a claim to lapse or be released) and answers as soon as one can be claimed, else with an empty \`items\`.`,
    permissions: ["worker"],
    scope: { by: "list" },
    body: strictObject(
      {
        worker_id: WORKER_ID,
        limit: int(
          `How many tasks at most, ${CLAIM_LIMIT.min} to ${CLAIM_LIMIT.max}, default ${CLAIM_LIMIT.default}.`,
          {
            minimum: CLAIM_LIMIT.min,
            maximum: CLAIM_LIMIT.max,
            default: CLAIM_LIMIT.default,
          },
        ),
        lease_ms: leaseMs("Lease length in ms,"),
        process: processName("Only tasks of this process."),
        task: str("Only tasks with this task id (pair with `process`).", { minLength: 1 }),
        version: int("Only tasks of this process version.", { minimum: 1, maximum: MAX_VERSION }),
        wait_ms: int(
          `Extension (long-poll): when nothing can be claimed, wait up to this many ms for a task before answering an empty \`items\`; ${CLAIM_WAIT_MS.min} to ${CLAIM_WAIT_MS.max}, default ${CLAIM_WAIT_MS.default} (answer at once).`,
          { minimum: CLAIM_WAIT_MS.min, maximum: CLAIM_WAIT_MS.max, default: CLAIM_WAIT_MS.default },
        ),
      },
      ["worker_id"],
    ),
    responses: {
      200: {
        description: "The claimed tasks.",
        schema: responseObject(
          {
            items: arrayOf(EXTERNAL_TASK_SCHEMA, "The claimed tasks; empty when nothing waits."),
            renew_before_ms: int("Renew within this many ms of the claim.", { minimum: 0 }),
          },
          ["items", "renew_before_ms"],
        ),
      },
    },
    errors: [400, 500],
    example: {
      request: { body: { worker_id: "mailer-1", limit: 1, lease_ms: 30000, process: "order-fulfilment" } },
      response: {
        items: [
          {
            token: SAMPLE_TOKEN,
            process: "order-fulfilment",
            version: 3,
            task: "approve",
            external_input: { order_id: "A-1001", amount: "129.90" },
            result_schema: { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] },
            raises: { rejected: { type: "object", properties: { reason: { type: "string" } } }, withdrawn: null },
            waiting_since: "2026-01-02T10:00:05.000Z",
            deadline: "2026-01-03T10:00:05.000Z",
            claimed_by: "mailer-1",
            claim_expires: "2026-01-02T10:01:35.000Z",
            instance_id: "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55",
            root_id: "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55",
            key: "A-1001",
            task_epoch: 4,
            attempt: 1,
          },
        ],
        renew_before_ms: 10000,
      },
    },
  }),
  action({
    name: "renewExternalTasks",
    method: "post",
    path: "/external-tasks/renew",
    tag: TAG,
    summary: "Renew claims",
    description:
      "Extends the claims of `tokens` by `lease_ms` " +
      `(${CLAIM_MS.min} to ${CLAIM_MS.max}, default ${CLAIM_MS.default}). ` +
      "Each token lands in one list: `renewed` (still yours), `lost` (claimed by another worker or lapsed: stop, do not release), `cancelled` (the instance was cancelled or no longer wants the task: stop, then release).",
    permissions: ["worker"],
    scope: { by: "external-task" },
    body: strictObject(
      {
        worker_id: WORKER_ID,
        tokens: arrayOf(
          CLAIM_TOKEN,
          "The claims to renew (an empty list is a no-op that still answers `renew_before_ms`).",
          { maxItems: 1000, uniqueItems: true },
        ),
        lease_ms: leaseMs("New lease length in ms from now,"),
      },
      ["worker_id", "tokens"],
    ),
    responses: {
      200: {
        description: "Every token, sorted by fate.",
        schema: responseObject(
          {
            renewed: arrayOf(str("A token."), "Still yours; keep working."),
            lost: arrayOf(str("A token."), "No longer yours; stop and do not release."),
            cancelled: arrayOf(str("A token."), "No longer wanted; stop, then release."),
            renew_before_ms: int("Renew again within this many ms.", { minimum: 0 }),
          },
          ["renewed", "lost", "cancelled", "renew_before_ms"],
        ),
      },
    },
    errors: [400, 500],
    example: {
      request: { body: { worker_id: "mailer-1", tokens: [SAMPLE_TOKEN] } },
      response: { renewed: [SAMPLE_TOKEN], lost: [], cancelled: [], renew_before_ms: 10000 },
    },
  }),
  action({
    name: "releaseExternalTask",
    method: "post",
    path: "/external-tasks/release",
    tag: TAG,
    summary: "Give a claimed task back",
    description:
      "Ends the claim at once; the task goes back to the queue and can be claimed again. A token whose task is no longer wanted (renew answered `cancelled`: the instance was cancelled, the visit is over, or a retry re-armed the task) is accepted and changes nothing (`released: false`). 409 for a token never issued or no longer holding its claim (lapsed, released, claimed again).",
    permissions: ["worker"],
    scope: { by: "external-task" },
    body: strictObject({ token: CLAIM_TOKEN }, ["token"]),
    responses: {
      200: {
        description: "Released.",
        schema: responseObject(
          { released: bool("Whether a live claim was ended and the task went back to the queue.") },
          ["released"],
        ),
      },
    },
    errors: [400, 409, 500],
    errorDescriptions: { 409: "The claim is not held (it lapsed or another worker holds the task)." },
    example: { request: { body: { token: SAMPLE_TOKEN } }, response: { released: true } },
  }),
  action({
    name: "resolveExternalTask",
    method: "post",
    path: "/external-tasks/resolve",
    tag: TAG,
    summary: "Resolve a claimed task",
    description:
      "Delivers the outcome of a claimed (or still parked) task: a `result`, validated and conformed against the task's `result_schema`, or an `error: {code, message?, data?}` whose `code` must be one of the task's `raises` and whose `data` must match its schema. " +
      "The process then resumes; an error outcome is routed through the task's on_error rules. A mismatch is a 400 and the task keeps waiting.",
    permissions: ["worker"],
    scope: { by: "external-task" },
    body: RESOLVE_BODY,
    responses: {
      200: {
        description: "Resolved.",
        schema: responseObject({ resolved: bool("Whether the outcome was accepted.") }, ["resolved"]),
      },
    },
    errors: [400, 404, 409, 500],
    errorDescriptions: {
      400: "The result does not match `result_schema`, or the error code/data is not declared; `fields` says where. The task keeps waiting.",
      404: "Unknown token or task.",
      409: "The claim is no longer live or the task already moved on (a late answer to an earlier visit).",
    },
    example: { request: { body: { token: SAMPLE_TOKEN, result: { approved: true } } }, response: { resolved: true } },
  }),
  action({
    name: "resolveExternalTaskBatch",
    method: "post",
    path: "/external-tasks/resolve-batch",
    tag: TAG,
    extension: true,
    summary: "Resolve many claimed tasks in one call",
    description:
      `Delivers up to ${RESOLVE_BATCH_ITEMS.max} outcomes, each exactly as \`POST /external-tasks/resolve\` would (same body per item, same checks, same log line), and answers each on its own, in the order given: \`resolved: true\`, or \`resolved: false\` with the \`code\`, \`error\` and \`fields\` that resolve would have answered for that token alone (404 \`not_found\`, 409 \`conflict\`, 400 \`invalid\`). ` +
      "One item's refusal changes nothing for the others. A token given twice resolves once; its repeat is answered `conflict`. The call itself fails only when the body is malformed (400) or the server cannot answer (500, 503): then no item's answer is known, and resolving an item again is answered `conflict` once it has landed.",
    permissions: ["worker"],
    scope: { by: "external-task" },
    body: strictObject(
      {
        items: arrayOf(
          RESOLVE_BODY,
          `The outcomes, ${RESOLVE_BATCH_ITEMS.min} to ${RESOLVE_BATCH_ITEMS.max}, each a body of resolve.`,
          { minItems: RESOLVE_BATCH_ITEMS.min, maxItems: RESOLVE_BATCH_ITEMS.max },
        ),
      },
      ["items"],
    ),
    responses: {
      200: {
        description: "Each item's answer, in the order of the request.",
        schema: responseObject(
          {
            items: arrayOf(
              responseObject(
                {
                  token: str("The item's token."),
                  resolved: bool("Whether this item's outcome was accepted."),
                  code: str(
                    "When not resolved: the ApiCode resolve would have answered (`not_found`, `conflict`, `invalid`).",
                    {
                      enum: ["invalid", "not_found", "conflict"],
                    },
                  ),
                  error: str("When not resolved: why, as resolve would have said it."),
                  fields: arrayOf(
                    responseObject(
                      {
                        path: str("Where in the item's outcome."),
                        message: str("What was wrong and what was expected."),
                      },
                      ["path", "message"],
                    ),
                    "When an outcome does not match the task's declaration: one entry per offending field.",
                  ),
                },
                ["token", "resolved"],
                { title: "ResolveBatchItem" },
              ),
              "One answer per item of the request, in its order.",
            ),
          },
          ["items"],
        ),
      },
    },
    errors: [400, 500],
    example: {
      request: {
        body: {
          items: [
            { token: SAMPLE_TOKEN, result: { approved: true } },
            { token: "ext_01J9Z4K2QX8N", error: { code: "withdrawn" } },
          ],
        },
      },
      response: {
        items: [
          { token: SAMPLE_TOKEN, resolved: true },
          {
            token: "ext_01J9Z4K2QX8N",
            resolved: false,
            code: "conflict",
            error: "the claim is no longer live: it lapsed or another worker claimed the task since",
          },
        ],
      },
    },
  }),
  action({
    name: "signalExternalTask",
    method: "post",
    path: "/external-tasks/signal",
    tag: TAG,
    summary: "Deliver an outcome by instance and task",
    description:
      "Delivers a `result` or an `error` outcome (as in resolve) to task `task` of instance `instance_id` without a claim. When the task is waiting now, it resolves (`delivered`); otherwise the outcome is buffered FIFO until the task next waits (`buffered`); an instance holds at most the server's `--limit-buffered-signals` buffered outcomes (default 100), and one more is refused with 409 `conflict`. " +
      "Extension: with `only_if_waiting: true` an outcome for a task that is not waiting now is refused with 409 instead of buffered, so an answer meant for the visit a person is looking at never reaches a later one; with `task_epoch` (from the waiting-task list) it is delivered only to that visit, so a new visit of the same task that started since is refused too.",
    permissions: ["worker"],
    scope: { by: "external-task" },
    body: outcomeBody(
      "Signal",
      {
        instance_id: str("The instance.", { minLength: 1 }),
        task: str("The external task id in its definition.", { minLength: 1 }),
        only_if_waiting: bool(
          '**Extension.** When true, deliver only if the task is waiting now: otherwise answer 409 `conflict` naming where the instance is, and buffer nothing. Default false (buffer, as the core interface does). docs/api.md "Signal only if waiting".',
        ),
        task_epoch: int(
          '**Extension.** The visit this outcome answers (`task_epoch` of the waiting-task list): delivered only while the task waits in that visit, else 409 `conflict` naming the visit that waits, and nothing is buffered. Implies `only_if_waiting` (false with it is a 400). docs/api.md "Signal only if waiting".',
          TASK_EPOCH_BOUNDS,
        ),
      },
      ["instance_id", "task"],
    ),
    responses: {
      200: {
        description: "Delivered or buffered.",
        schema: responseObject(
          {
            delivered: bool("The task was waiting and resolved."),
            buffered: bool("Queued until the task next waits."),
          },
          ["delivered", "buffered"],
        ),
      },
    },
    errors: [400, 404, 409, 500],
    errorDescriptions: {
      400: "The result or error outcome does not match the task's declaration, or `task_epoch` comes with `only_if_waiting: false`; `fields` says where.",
      404: "Unknown instance, or the task is not an external task of its definition.",
      409: "The instance is settled and will never wait on that task again; or, with `only_if_waiting` or `task_epoch` (extensions), the task is not waiting now, or waits in another visit than `task_epoch`, and nothing was delivered or buffered.",
    },
    example: {
      request: {
        body: {
          instance_id: "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55",
          task: "approve",
          error: { code: "rejected", message: "over budget", data: { reason: "budget" } },
        },
      },
      response: { delivered: true, buffered: false },
    },
  }),
];
