// Over 300 lines on purpose: every instance action's spec (path, permission, query, body and response schemas) as
// declarative data; the list, detail, lifecycle and bulk actions share schema fragments defined here.
import type { JsonSchema } from "../action-spec.js";
import { LIST_SORTS, listQuerySchema, pageEnvelopeSchema } from "../pagination.js";
import {
  ACTOR_LABEL,
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
  unixMs,
  MAX_VERSION,
} from "../schema.js";
import { action } from "./define.js";
import { FLOW_WAIT_REASONS, INSTANCE_PHASES, INSTANCE_STATUSES } from "../statuses.js";
import { LOG_LEVELS } from "@baton/log";

const TAG = "instances";

/** The longest business `key` of an instance (docs/api.md "Business keys"). */
export const INSTANCE_KEY_MAX_LENGTH = 200;
/** The dimensions `GET /instances/counts` can group by. */
export const COUNT_DIMENSIONS = ["status", "process", "error_code", "phase", "task"] as const;
/** Groups one counts answer holds at most; more sets `truncated`. */
export const COUNT_GROUPS_MAX = 1000;
export const LIFECYCLE_OUTCOMES = ["paused", "pausing", "resumed", "cancelled", "cancelling", "retried"] as const;

const STATUS = str(
  "Instance status: `running`; `pausing` (a pause waits for a task in flight to finish); `paused`; `failing` (a child failed while its siblings still run — " +
    "the instance fails with the child's code once they settle); `cancelling` (a cancel waits for a task in flight); `completed`; `failed`; `raised` (ended with an authored code); `cancelled` (terminal).",
  { enum: [...INSTANCE_STATUSES] },
);
const PHASE = nullable(
  str(
    "Why a running instance waits: `children` (blocked until its children settle), `collecting` (children settled, outputs to merge), `external` (parked for a worker); null otherwise. Survives a pause.",
    { enum: [...INSTANCE_PHASES] },
  ),
);

const STATUS_FIELDS: Record<string, JsonSchema> = {
  id: str("Instance id (time-ordered)."),
  process: str("Process name."),
  version: int("Process version the instance runs.", { minimum: 1, maximum: MAX_VERSION }),
  status: STATUS,
  task: str("The task the instance sits on; after it settled, the last task it ran."),
  retry_count: int("Retries scheduled on the current task visit.", { minimum: 0 }),
  error_code: str(
    "On failure: the error code (authored lower_snake_case, or an engine code with a dot such as `http.500`).",
  ),
  error_message: str("On failure: what happened."),
  output: anyJson("When finished with output: the process output."),
  created_at: dateTime("When the instance started (ISO 8601 UTC)."),
  updated_at: dateTime("When the instance last changed (ISO 8601 UTC)."),
  wake_at: nullable(
    dateTime(
      "**Extension.** When the engine next acts on this instance by itself (ISO 8601 UTC): the end of a retry backoff or a delay, an external task's deadline; a past instant means due now. Null when nothing timed is pending (settled, paused, parked without a deadline, waiting for children).",
    ),
  ),
  key: nullable(
    str(
      "**Extension.** The business key given at start (`POST /instances` `key`), e.g. an order number; null when none was given. Children have none.",
    ),
  ),
};
const STATUS_REQUIRED = [
  "id",
  "process",
  "version",
  "status",
  "task",
  "retry_count",
  "created_at",
  "updated_at",
  "wake_at",
  "key",
];

const TREE_FIELDS: Record<string, JsonSchema> = {
  parent_id: nullable(str("The parent instance; null for a root.")),
  root_id: str("The root of the tree (its own id for a root)."),
  phase: PHASE,
};

export const INSTANCE_STATUS_SCHEMA = responseObject(STATUS_FIELDS, STATUS_REQUIRED, { title: "InstanceStatusView" });
export const INSTANCE_ROW_SCHEMA = responseObject(
  { ...STATUS_FIELDS, ...TREE_FIELDS },
  [...STATUS_REQUIRED, "parent_id", "root_id", "phase"],
  {
    title: "InstanceRow",
  },
);

const DETAIL_FIELDS: Record<string, JsonSchema> = {
  id: STATUS_FIELDS.id,
  process: STATUS_FIELDS.process,
  version: STATUS_FIELDS.version,
  status: STATUS,
  task: STATUS_FIELDS.task,
  retry_count: STATUS_FIELDS.retry_count,
  created_at: STATUS_FIELDS.created_at,
  updated_at: STATUS_FIELDS.updated_at,
  wake_at: STATUS_FIELDS.wake_at,
  key: STATUS_FIELDS.key,
  error_code: STATUS_FIELDS.error_code,
  error_message: STATUS_FIELDS.error_message,
  output: STATUS_FIELDS.output,
  ...TREE_FIELDS,
  state: responseObject(
    {
      _children: openObject("Task id → the child instance id(s) it spawned."),
      input: anyJson("The conformed instance input."),
      outputs: openObject("Task id → its output."),
    },
    [],
    {
      description:
        "The stored state verbatim. Externalized values appear as references unless `resolve=true`. Besides `input`, `outputs` and `_children`, the engine keeps its bookkeeping under other `_`-prefixed keys (`_wait`: the armed wait, `_error`: the `error` root of a task entered through on_error, `_spawn`…): shown for diagnosis, their shape is internal and may change.",
      additionalProperties: { description: "Engine bookkeeping (`_`-prefixed keys); internal." },
    },
  ),
  lease_epoch: int("Increments on every lease; fences stale workers.", { minimum: 0 }),
  task_epoch: int("Increments on every task entry.", { minimum: 0 }),
  parent_task_epoch: int("The parent's task epoch when this child was spawned (0 for a root).", { minimum: 0 }),
  next_replayable: bool("Whether the current task may run again after an interruption."),
  external_claim_epoch: int("Increments on every external claim of the current task visit.", { minimum: 0 }),
  objects: arrayOf(
    responseObject(
      {
        path: arrayOf(str("A key or index."), "Where the value sits in this response."),
        ref: str("Content hash; fetch with `GET /objects/{ref}`."),
        size: int("Size of its JSON in bytes.", { minimum: 0 }),
      },
      ["path", "ref", "size"],
    ),
    "Externalized values still referenced from this response (all of them, or those over the per-object limit with `resolve=true`).",
  ),
};

/** Extension (docs/flow-control.md): what a running instance waits for, while it waits. */
export const FLOW_WAIT_SCHEMA = responseObject(
  {
    reason: str("`concurrency`: a slot; `rate_limit`: a start permit.", { enum: [...FLOW_WAIT_REASONS] }),
    scope: str("What is limited: `process:<name>`, `task:<name>/<task>` or `rate:<name>/<task>`."),
    key: str("The evaluated key it waits on."),
    limit: int("The limit of the version it runs.", { minimum: 1 }),
    since: dateTime("When it started waiting (ISO 8601 UTC)."),
  },
  ["reason", "scope", "key", "limit", "since"],
  { title: "FlowWait" },
);
DETAIL_FIELDS.waiting_for = {
  ...FLOW_WAIT_SCHEMA,
  description:
    "**Extension.** Sent only while the instance waits for a flow-control slot or start permit (docs/flow-control.md).",
};

/** Sent only when set, as in the status view. */
const DETAIL_OPTIONAL = new Set(["error_code", "error_message", "output", "waiting_for"]);

export const INSTANCE_DETAIL_SCHEMA = responseObject(
  DETAIL_FIELDS,
  Object.keys(DETAIL_FIELDS).filter((k) => !DETAIL_OPTIONAL.has(k)),
  {
    title: "InstanceDetail",
  },
);

export const LOG_ENTRY_SCHEMA = responseObject(
  {
    id: str("Log entry id (time-ordered)."),
    instance_id: str("The instance it belongs to."),
    level: str("Severity.", { enum: [...LOG_LEVELS] }),
    event: str("Machine-readable event name, e.g. `task.completed`."),
    message: str("What happened, for a person."),
    task: nullable(str("The task it concerns, if any.")),
    actor: nullable(str("Who caused it (`token:<id>` or a subject), for operator actions.")),
    actor_label: nullable(ACTOR_LABEL),
    data: openObject("Structured details; never contains secrets."),
    created_at: dateTime("When it was written (ISO 8601 UTC)."),
    trace_id: str(
      '**Extension.** The trace id of the instance\'s trace (32 hex digits, docs/tracing.md "The trace of an instance"), for a link to the tracing tool; absent when the server does not trace and the instance stored no trace context.',
      { pattern: "^[0-9a-f]{32}$" },
    ),
  },
  ["id", "instance_id", "level", "event", "message", "created_at"],
  { title: "LogEntry" },
);

const LIFECYCLE_SCHEMA = responseObject(
  {
    outcome: str(
      "What the call did: `paused`, `pausing` (a task in flight is still draining), `resumed`, `cancelled`, `cancelling` (draining), `retried`.",
      {
        enum: [...LIFECYCLE_OUTCOMES],
      },
    ),
    status: str("The root's status after the call.", { enum: [...INSTANCE_STATUSES] }),
    instances: int("How many instances of the tree the call changed.", { minimum: 0 }),
  },
  ["outcome", "status", "instances"],
  { title: "LifecycleResponse" },
);

const ID_PARAMS = strictObject({ id: str("Instance id.", { minLength: 1 }) }, ["id"]);
const ROOT_PARAMS = strictObject({ id: str("Root instance id (a child id is refused with 400).", { minLength: 1 }) }, [
  "id",
]);

const STATUS_LIST_PATTERN = `^(${INSTANCE_STATUSES.join("|")})(,(${INSTANCE_STATUSES.join("|")}))*$`;

/** The filters of `GET /instances`, shared by `GET /instances/counts` (and the bulk verbs). */
export const INSTANCE_FILTERS: Record<string, JsonSchema> = {
  status: str(`One status or several comma-separated, from: ${INSTANCE_STATUSES.join(", ")}.`, {
    pattern: STATUS_LIST_PATTERN,
  }),
  phase: str("Only running instances waiting in this phase.", { enum: [...INSTANCE_PHASES] }),
  task: str("Exact task id the instance sits on (pair with `process`).", { minLength: 1 }),
  error_code: str("Exact error code, e.g. `http.503` or `out_of_stock`.", { minLength: 1 }),
  error_code_prefix: str(
    "**Extension.** Error codes starting with this text: `http.5` selects `http.500`…`http.599`. Matched literally (`_` and `%` are not wildcards).",
    { minLength: 1, maxLength: 200 },
  ),
  process: processName("Exact process name, across every version."),
  version: int("Exact process version; 0 means any.", { minimum: 0, maximum: MAX_VERSION }),
  children: bool("Include child instances. Omitted or false: roots only, one row per tree."),
  created_after: unixMs("Created at or after this instant (unix ms)."),
  created_before: unixMs("Created strictly before this instant (unix ms)."),
  updated_after: unixMs("Updated at or after this instant (unix ms)."),
  updated_before: unixMs("Updated strictly before this instant (unix ms)."),
  key: str("**Extension.** Exact business key (as given to `POST /instances`).", {
    minLength: 1,
    maxLength: INSTANCE_KEY_MAX_LENGTH,
  }),
  waiting_for: str(
    "**Extension.** Only running instances waiting for a flow-control slot (`concurrency`) or start permit (`rate_limit`), docs/flow-control.md.",
    { enum: [...FLOW_WAIT_REASONS] },
  ),
  wait_key: str("**Extension.** Only instances waiting for flow control on this key (any scope).", {
    minLength: 1,
    maxLength: 1024,
  }),
  parent_id: str("**Extension.** Only the children of this instance (implies `children`).", {
    pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
  }),
};

const COUNT_BY_PATTERN = `^(${COUNT_DIMENSIONS.join("|")})(,(${COUNT_DIMENSIONS.join("|")}))?$`;

const SAMPLE_ID = "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55";
const SAMPLE_STATUS = {
  id: SAMPLE_ID,
  process: "order-fulfilment",
  version: 3,
  status: "failed",
  task: "charge",
  retry_count: 3,
  error_code: "http.503",
  error_message: 'task "charge": http.503: Service Unavailable',
  created_at: "2026-01-02T10:00:00.000Z",
  updated_at: "2026-01-02T10:00:42.000Z",
  wake_at: null,
  key: "A-1001",
};

const LIFECYCLE_NOTE =
  "It acts on the whole tree through the root id and refuses a child id with 400. The body reports `outcome`, the root's `status` after the call and the number of `instances` changed.";

export const instanceActions = [
  action({
    name: "startInstance",
    method: "post",
    path: "/instances",
    tag: TAG,
    summary: "Start an instance of a process",
    description:
      "Starts `process` at `version` (omit for the latest) with `input`, which is validated and conformed against the process's `input_schema` (defaults filled, undeclared keys stripped). " +
      "A process without `input_schema` takes no input. Poll `GET /instances/{id}` for its progress.\n\n" +
      "**Idempotent starts** (extension): with an `Idempotency-Key` header, a retry of the same start (same key, same caller, same body) within 24 hours answers the instance the first request started (its current status) and starts nothing; the same key with a different body is a 409. " +
      "Send a fresh key per logical start and the same key on every retry of it: a start whose answer was lost (a timeout, a dropped connection, a 503 while the database restarts) is then safe to retry. Without the header every request starts a new instance.",
    permissions: ["operate"],
    scope: { by: "body-process", field: "process" },
    headers: {
      type: "object",
      properties: {
        "Idempotency-Key": {
          type: "string",
          minLength: 1,
          maxLength: 255,
          pattern: "^[\\x21-\\x7e]+$",
          description:
            "Names this start for 24 hours (1–255 visible ASCII characters): a retry with the same key and body answers the same instance instead of starting another.",
        },
      },
    },
    body: strictObject(
      {
        process: processName("Process name."),
        version: int("Version to run; omit for the latest.", { minimum: 1, maximum: MAX_VERSION }),
        input: openObject("The instance input; must conform to the process's `input_schema`."),
        key: str(
          `**Extension.** A business key naming what this instance is about (an order number, a customer id), 1 to ${INSTANCE_KEY_MAX_LENGTH} characters. ` +
            'Stored and shown on every view; `GET /instances?key=` finds it. It does not deduplicate: use the `Idempotency-Key` header for that (docs/api.md "Business keys").',
          { minLength: 1, maxLength: INSTANCE_KEY_MAX_LENGTH },
        ),
      },
      ["process"],
    ),
    responses: {
      200: {
        description: "Started.",
        schema: responseObject(
          { id: STATUS_FIELDS.id, process: STATUS_FIELDS.process, version: STATUS_FIELDS.version, status: STATUS },
          ["id", "process", "version", "status"],
          { title: "StartedInstance" },
        ),
      },
    },
    errors: [400, 404, 409, 500],
    errorDescriptions: {
      400: "The body or the input is invalid; `fields` names each offending input path.",
      404: "The process or that version is not registered.",
      409: "Extension: the `Idempotency-Key` was used within 24 hours for a start with a different body.",
    },
    example: {
      request: { body: { process: "order-fulfilment", input: { order_id: "A-1001" }, key: "A-1001" } },
      response: { id: SAMPLE_ID, process: "order-fulfilment", version: 3, status: "running" },
    },
  }),
  action({
    name: "listInstances",
    method: "get",
    path: "/instances",
    tag: TAG,
    summary: "List instances",
    description:
      "Roots only (one row per tree) unless `children=true` or `parent_id` is given. Filters combine with AND. `status` takes one status or several comma-separated (`failed,raised`) from: " +
      `${INSTANCE_STATUSES.join(", ")}. ` +
      "`task` is an exact task id; pair it with `process`, since task ids are unique only within a definition. `version` 0 means any. Time bounds are unix ms: `*_after` at or after, `*_before` strictly before. " +
      "Sort keys: `created_at` (default, desc: newest first), `updated_at`. " +
      "**Extension:** `key` (exact business key) and `parent_id` (one parent's children).",
    permissions: ["read"],
    scope: { by: "list" },
    query: listQuerySchema(LIST_SORTS.instances, INSTANCE_FILTERS),
    responses: {
      200: { description: "A page of instance rows.", schema: pageEnvelopeSchema(INSTANCE_ROW_SCHEMA, "InstancePage") },
    },
    errors: [400, 500],
    example: {
      request: { query: { status: "failed,raised", process: "order-fulfilment", limit: 1 } },
      response: {
        items: [{ ...SAMPLE_STATUS, parent_id: null, root_id: SAMPLE_ID, phase: null }],
        page: {
          size: 1,
          items_before: 0,
          items_after: 12,
          sort: "created_at",
          order: "desc",
          next_cursor: "MDE5YTNjMWU",
          previous_cursor: null,
        },
      },
    },
  }),
  // Before getInstance: the router tries routes in registry order, and /instances/{id} would take "counts" as an id.
  action({
    name: "listFlowWaits",
    method: "get",
    path: "/instances/waits",
    tag: TAG,
    extension: true,
    summary: "Instances waiting for flow control, grouped by scope and key",
    description:
      "The waits for flow-control slots and start permits (docs/flow-control.md), grouped by scope and key: how many instances wait on each and since when the oldest waits, " +
      "the longest queues first. `process` keeps the scopes of one process; `reason` one kind of wait. At most `limit` groups (default 100); `truncated` says whether more exist. " +
      "List the instances of one group with `GET /instances?waiting_for=<reason>&wait_key=<key>`.",
    permissions: ["read"],
    scope: { by: "list" },
    query: strictObject({
      process: processName("Only the scopes of this process."),
      reason: str("Only this kind of wait.", { enum: [...FLOW_WAIT_REASONS] }),
      limit: int("Groups to return.", { minimum: 1, maximum: 1000, default: 100 }),
    }),
    responses: {
      200: {
        description: "The groups.",
        schema: responseObject(
          {
            groups: arrayOf(
              responseObject(
                {
                  reason: str("The kind of wait.", { enum: [...FLOW_WAIT_REASONS] }),
                  scope: str("What is limited."),
                  key: str("The key."),
                  waiting: int("Instances waiting on it.", { minimum: 1 }),
                  oldest_since: dateTime("When its oldest wait began."),
                },
                ["reason", "scope", "key", "waiting", "oldest_since"],
              ),
              "The groups, the most instances waiting first.",
            ),
            truncated: bool("More groups exist than `limit`."),
          },
          ["groups", "truncated"],
          { title: "FlowWaits" },
        ),
      },
    },
    errors: [400, 500],
    example: {
      request: { query: { process: "order-fulfilment" } },
      response: {
        groups: [
          {
            reason: "concurrency",
            scope: "process:order-fulfilment",
            key: "customer-42",
            waiting: 3,
            oldest_since: "2026-01-02T10:00:00.000Z",
          },
        ],
        truncated: false,
      },
    },
  }),
  action({
    name: "countInstances",
    method: "get",
    path: "/instances/counts",
    tag: TAG,
    extension: true,
    summary: "Count instances, grouped",
    description:
      "Counts the instances `GET /instances` would list with the same filters (roots only unless `children=true` or `parent_id`), grouped by `by`: one or two of " +
      `${COUNT_DIMENSIONS.join(", ")}, comma-separated (default \`status\`). Each group carries its dimension values and \`count\`; groups are ordered by their values. ` +
      `At most ${COUNT_GROUPS_MAX} groups are returned (\`truncated\` says whether more exist); \`total\` counts every matching instance. ` +
      'Served from the instances indexes; the cost on large tables is in docs/api.md "Counts".',
    permissions: ["read"],
    scope: { by: "list" },
    query: strictObject({
      ...INSTANCE_FILTERS,
      by: str(`One or two of: ${COUNT_DIMENSIONS.join(", ")}, comma-separated. Default status.`, {
        pattern: COUNT_BY_PATTERN,
        default: "status",
      }),
    }),
    responses: {
      200: {
        description: "The counts.",
        schema: responseObject(
          {
            by: arrayOf(str("A dimension.", { enum: [...COUNT_DIMENSIONS] }), "The dimensions grouped by, in order."),
            groups: arrayOf(
              {
                type: "object",
                description:
                  "One group: the value of each `by` dimension (null for an instance without one, e.g. no error_code) and `count`.",
                properties: {
                  status: STATUS,
                  process: str("Process name."),
                  error_code: nullable(str("Error code.")),
                  phase: PHASE,
                  task: str(
                    "The task the instances sit on (`by=task`, with `process`: task ids are unique within a definition).",
                  ),
                  count: int("Instances in this group.", { minimum: 1 }),
                },
                required: ["count"],
                additionalProperties: false,
              },
              "The non-empty groups, ordered by their values.",
            ),
            total: int("Every matching instance.", { minimum: 0 }),
            truncated: bool(`More than ${COUNT_GROUPS_MAX} groups matched; only the first are returned.`),
          },
          ["by", "groups", "total", "truncated"],
          { title: "InstanceCounts" },
        ),
      },
    },
    errors: [400, 500],
    example: {
      request: { query: { by: "status,error_code", process: "order-fulfilment" } },
      response: {
        by: ["status", "error_code"],
        groups: [
          { status: "completed", error_code: null, count: 1180 },
          { status: "failed", error_code: "http.503", count: 37 },
          { status: "running", error_code: null, count: 12 },
        ],
        total: 1229,
        truncated: false,
      },
    },
  }),
  action({
    name: "getInstance",
    method: "get",
    path: "/instances/{id}",
    tag: TAG,
    summary: "Get an instance's status",
    description:
      "The status view: where the instance is, and on failure its `error_code` and `error_message`; when finished with output, its `output`.",
    permissions: ["read"],
    scope: { by: "instance", param: "id" },
    params: ID_PARAMS,
    responses: { 200: { description: "The status view.", schema: INSTANCE_STATUS_SCHEMA } },
    errors: [400, 404, 500],
    errorDescriptions: { 404: "No instance with that id." },
    example: { request: { params: { id: SAMPLE_ID } }, response: SAMPLE_STATUS },
  }),
  action({
    name: "getInstanceDetail",
    method: "get",
    path: "/instances/{id}/detail",
    tag: TAG,
    summary: "Get an instance's full state",
    description:
      "The detail view: the stored state verbatim (`input`, `outputs` per task, `_children`), the epochs and the tree links. Large values are stored outside the state and listed under `objects`; " +
      "with `resolve=true` they are spliced back in where they fit, and only those over the per-object limit stay listed for you to fetch with `GET /objects/{ref}`.",
    permissions: ["read"],
    scope: { by: "instance", param: "id" },
    params: ID_PARAMS,
    query: strictObject({ resolve: bool("Splice externalized values into the state (up to the per-object limit).") }),
    responses: { 200: { description: "The detail view.", schema: INSTANCE_DETAIL_SCHEMA } },
    errors: [400, 404, 500],
    errorDescriptions: { 404: "No instance with that id." },
    example: {
      request: { params: { id: SAMPLE_ID }, query: { resolve: true } },
      response: {
        id: SAMPLE_ID,
        process: "order-fulfilment",
        version: 3,
        status: "running",
        task: "ship",
        retry_count: 0,
        created_at: "2026-01-02T10:00:00.000Z",
        updated_at: "2026-01-02T10:00:01.000Z",
        wake_at: "2026-01-02T10:00:01.000Z",
        key: "A-1001",
        phase: null,
        parent_id: null,
        root_id: SAMPLE_ID,
        state: { _children: {}, input: { order_id: "A-1001" }, outputs: { charge: { receipt: "r-77" } } },
        lease_epoch: 2,
        task_epoch: 2,
        parent_task_epoch: 0,
        next_replayable: true,
        external_claim_epoch: 0,
        objects: [],
      },
    },
  }),
  action({
    name: "listInstanceLogs",
    method: "get",
    path: "/instances/{id}/logs",
    tag: TAG,
    summary: "List an instance's log entries",
    description:
      "The audit trail, newest first. For a root id every row of its tree is returned unless `flat=true`; a child id returns its own rows either way. " +
      "`level` keeps that level and everything above (`warn` keeps errors). Time bounds are unix ms. Sort key: `created_at` (default, desc).",
    permissions: ["read"],
    scope: { by: "instance", param: "id" },
    params: ID_PARAMS,
    query: listQuerySchema(LIST_SORTS.logs, {
      level: str("Minimum level: `debug`, `info`, `warn` or `error`.", { enum: [...LOG_LEVELS] }),
      created_after: unixMs("Written at or after this instant (unix ms)."),
      created_before: unixMs("Written strictly before this instant (unix ms)."),
      flat: bool("Only this instance's own rows, not its tree's."),
    }),
    responses: {
      200: { description: "A page of log entries.", schema: pageEnvelopeSchema(LOG_ENTRY_SCHEMA, "LogPage") },
    },
    errors: [400, 404, 500],
    errorDescriptions: { 404: "No instance with that id." },
    example: {
      request: { params: { id: SAMPLE_ID }, query: { level: "warn", limit: 1 } },
      response: {
        items: [
          {
            id: "019a3c1f-0000-7000-8000-000000000001",
            instance_id: SAMPLE_ID,
            level: "error",
            event: "instance.failed",
            message: 'task "charge": http.503: Service Unavailable',
            task: "charge",
            actor: null,
            actor_label: null,
            data: { code: "http.503" },
            created_at: "2026-01-02T10:00:42.000Z",
          },
        ],
        page: {
          size: 1,
          items_before: 0,
          items_after: 0,
          sort: "created_at",
          order: "desc",
          next_cursor: null,
          previous_cursor: null,
        },
      },
    },
  }),
  action({
    name: "pauseInstance",
    method: "post",
    path: "/instances/{id}/pause",
    tag: TAG,
    summary: "Pause an instance tree",
    description:
      `Stops the tree at the next task boundary; a task in flight finishes first. ${LIFECYCLE_NOTE} ` +
      "200 (`outcome: paused`): the whole tree is paused. 202 (`outcome: pausing`): a task in flight is still draining; the root shows `pausing` until it lands. 204, no body: the tree was not running, nothing changed. Resume with `POST /instances/{id}/resume`.",
    permissions: ["operate"],
    scope: { by: "instance", param: "id" },
    params: ROOT_PARAMS,
    responses: {
      200: { description: "The tree is paused.", schema: LIFECYCLE_SCHEMA },
      202: { description: "Pausing: a task in flight is still draining.", schema: LIFECYCLE_SCHEMA },
      204: { description: "The tree was not running; nothing changed." },
    },
    errors: [400, 404, 500],
    errorDescriptions: {
      400: "A child id was given (act on its root), or the id is malformed.",
      404: "No instance with that id.",
    },
    example: {
      request: { params: { id: SAMPLE_ID } },
      response: { outcome: "paused", status: "paused", instances: 3 },
    },
  }),
  action({
    name: "resumeInstance",
    method: "post",
    path: "/instances/{id}/resume",
    tag: TAG,
    summary: "Resume a paused instance tree",
    description:
      `Continues the tree exactly where it stopped; timers kept running while it was paused. ${LIFECYCLE_NOTE} ` +
      "200 (`outcome: resumed`): running again. 204, no body: the tree was already advancing. 409: the tree is settled, or is being cancelled, and cannot advance (use retry for a failed one).",
    permissions: ["operate"],
    scope: { by: "instance", param: "id" },
    params: ROOT_PARAMS,
    responses: {
      200: { description: "Resumed.", schema: LIFECYCLE_SCHEMA },
      204: { description: "Already advancing; nothing changed." },
    },
    errors: [400, 404, 409, 500],
    errorDescriptions: {
      400: "A child id was given (act on its root).",
      404: "No instance with that id.",
      409: "The tree is settled or being cancelled, and cannot advance.",
    },
    example: {
      request: { params: { id: SAMPLE_ID } },
      response: { outcome: "resumed", status: "running", instances: 3 },
    },
  }),
  action({
    name: "cancelInstance",
    method: "post",
    path: "/instances/{id}/cancel",
    tag: TAG,
    summary: "Cancel an instance tree",
    description:
      `Stops every live instance of the tree for good at the next task boundary: cancelled is terminal and not retryable. A worker holding a claim learns of it on its next renewal. ${LIFECYCLE_NOTE} ` +
      "200 (`outcome: cancelled`): the tree stopped. 202 (`outcome: cancelling`): a task in flight is still draining. 204, no body: nothing live to stop.",
    permissions: ["operate"],
    scope: { by: "instance", param: "id" },
    params: ROOT_PARAMS,
    responses: {
      200: { description: "The tree is cancelled.", schema: LIFECYCLE_SCHEMA },
      202: { description: "Cancelling: a task in flight is still draining.", schema: LIFECYCLE_SCHEMA },
      204: { description: "Nothing live to stop." },
    },
    errors: [400, 404, 500],
    errorDescriptions: { 400: "A child id was given (act on its root).", 404: "No instance with that id." },
    example: {
      request: { params: { id: SAMPLE_ID } },
      response: { outcome: "cancelling", status: "cancelling", instances: 2 },
    },
  }),
  action({
    name: "retryInstance",
    method: "post",
    path: "/instances/{id}/retry",
    tag: TAG,
    summary: "Retry a failed instance tree",
    description:
      "Revives a failed tree where it died: each instance whose own task failed gets another attempt at it beyond its on_error budget (a new task visit); " +
      "each ancestor that failed because of it waits for it again, and children that completed keep their outcome. `instances` counts the revived rows. " +
      `${LIFECYCLE_NOTE} ` +
      "An instance that failed on an only_once task may already have had its effect; it is refused (409) unless `force=true` (or its code is `pre.*`, which provably never left).",
    permissions: ["operate"],
    scope: { by: "instance", param: "id" },
    params: ROOT_PARAMS,
    query: strictObject({
      force: bool("Override the only_once protection: retry even though the failed call may have taken effect."),
    }),
    responses: { 200: { description: "Retried (`outcome: retried`).", schema: LIFECYCLE_SCHEMA } },
    errors: [400, 404, 409, 500],
    errorDescriptions: {
      400: "A child id was given (act on its root).",
      404: "No instance with that id.",
      409: "Retry refused: the tree is not failed (a cancelled tree never is), or only_once protection applies without `force=true`.",
    },
    example: {
      request: { params: { id: SAMPLE_ID }, query: { force: false } },
      response: { outcome: "retried", status: "running", instances: 1 },
    },
  }),
  action({
    name: "upgradeInstance",
    method: "post",
    path: "/instances/{id}/upgrade",
    tag: TAG,
    summary: "Move a live instance tree to another version",
    description:
      "Moves the root and every live descendant running `from_version` of its process to `to_version`, after the upgrade compatibility check for the tasks the tree sits on (see `POST /definitions/compat`). " +
      "`moves` lists every instance moved. Refuses a child id with 400.",
    permissions: ["deploy"],
    scope: { by: "instance", param: "id" },
    params: ROOT_PARAMS,
    body: strictObject(
      {
        from_version: int("The version the tree runs now (guards against racing another upgrade).", {
          minimum: 1,
          maximum: MAX_VERSION,
        }),
        to_version: int("The version to move to.", { minimum: 1, maximum: MAX_VERSION }),
      },
      ["from_version", "to_version"],
    ),
    responses: {
      200: {
        description: "The result.",
        schema: responseObject(
          {
            upgraded: bool("Whether anything moved."),
            moves: nullable(
              arrayOf(
                responseObject(
                  {
                    instance_id: str("The instance moved."),
                    process: str("Its process."),
                    from_version: int("Its version before.", { minimum: 1, maximum: MAX_VERSION }),
                    to_version: int("Its version now.", { minimum: 1, maximum: MAX_VERSION }),
                    task: str("The task it sits on."),
                  },
                  ["instance_id", "process", "from_version", "to_version", "task"],
                ),
                "Every instance moved; null when nothing moved.",
              ),
            ),
          },
          ["upgraded", "moves"],
        ),
      },
    },
    errors: [400, 404, 409, 500],
    errorDescriptions: {
      400: "A child id was given (act on its root), or the body is invalid.",
      404: "No instance with that id, or `to_version` is not registered.",
      409: "The tree does not run `from_version`, is not live, or the upgrade check failed for a task it sits on (the message names it).",
    },
    example: {
      request: { params: { id: SAMPLE_ID }, body: { from_version: 3, to_version: 4 } },
      response: {
        upgraded: true,
        moves: [{ instance_id: SAMPLE_ID, process: "order-fulfilment", from_version: 3, to_version: 4, task: "ship" }],
      },
    },
  }),
  action({
    name: "getObject",
    method: "get",
    path: "/objects/{ref}",
    tag: TAG,
    summary: "Fetch an externalized value",
    description:
      "A value stored outside an instance's state, by the content hash listed under `objects` of the detail view. The body is the stored JSON value itself.",
    permissions: ["worker", "read"],
    scope: { by: "object" },
    params: strictObject({ ref: str("Content hash of the value, from `objects[].ref`.", { minLength: 1 }) }, ["ref"]),
    responses: { 200: { description: "The stored JSON value.", schema: anyJson("The stored JSON value.") } },
    errors: [400, 404, 500],
    errorDescriptions: { 404: "No object with that ref." },
    example: {
      request: { params: { ref: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" } },
      response: { lines: [{ sku: "X-1", qty: 2 }] },
    },
  }),
];
