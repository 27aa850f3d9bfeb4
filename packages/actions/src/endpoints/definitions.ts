// Over 300 lines on purpose: every definition and channel action's spec as declarative data; the
// register, validate, compat and promote actions share the schema fragments defined here.
import type { JsonSchema } from "../action-spec.js";
import { LIST_SORTS, listQuerySchema, pageEnvelopeSchema } from "../pagination.js";
import {
  ACTOR_LABEL,
  arrayOf,
  bool,
  dateTime,
  int,
  nullable,
  openObject,
  processName,
  responseObject,
  schemaValue,
  str,
  strictObject,
  unixMs,
  MAX_VERSION,
} from "../schema.js";
import { action } from "./define.js";

const TAG = "definitions";

const DEFINITION_BODY: JsonSchema = {
  type: "object",
  additionalProperties: {},
  title: "ProcessDefinition",
  description:
    "A process definition as described in the language reference (docs/language.md): `name`, `tasks`, optional `input_schema`, `output`, `config_schema`, `$defs`. " +
    'The server validates it in full and answers 400 with one entry per problem in `fields` (for example `tasks[2].on_error[0]: unknown field "retires"`).',
};

const SAMPLE_DEFINITION = {
  name: "order-fulfilment",
  input_schema: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
  tasks: [
    {
      id: "charge",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Baton `${ }` template, interpolated by the engine
      action: { type: "fetch", url: "https://payments.example/charge/${input.order_id}", method: "post" },
    },
    {
      id: "ship",
      action: {
        type: "fetch",
        url: "https://shipping.example/ship",
        method: "post",
        body: { order: "$: input.order_id" },
      },
    },
  ],
};

export const DEFINITION_SUMMARY_SCHEMA: JsonSchema = responseObject(
  {
    name: str("Process name."),
    version: int("Version number, from 1 for a new name.", { minimum: 1, maximum: MAX_VERSION }),
    created_at: dateTime("When this version was registered (ISO 8601 UTC)."),
    actor: str("Who registered it (`token:<id>` or the signed-in subject)."),
    actor_label: ACTOR_LABEL,
    raises: arrayOf(
      str("An authored error code."),
      "Every authored error code the process can end with (declared `raises` and raise clauses).",
    ),
  },
  ["name", "version", "created_at"],
  { title: "DefinitionSummary" },
);

const PUT_RESPONSE = responseObject(
  {
    name: str("Process name."),
    saved: bool("Whether a new version was stored; false when the canonical form equals the latest version's."),
    version: int("The new version, or the latest one when nothing was saved.", { minimum: 1, maximum: MAX_VERSION }),
  },
  ["name", "saved", "version"],
);

const BATCH_RESULT = responseObject(
  {
    name: str("Process name."),
    version: int("The version the channel now points at.", { minimum: 1, maximum: MAX_VERSION }),
    saved: bool("Whether a new version was stored for this definition."),
    previous: int("The version the channel pointed at before; 0 when the process was not on the channel.", {
      minimum: 0,
    }),
  },
  ["name", "version", "saved", "previous"],
);

const TASK_SCHEMAS = responseObject(
  {
    action_type: nullable(
      str(
        "The action type (`fetch`, `external`, `child`, `child_map`, `child_list`, `delay`); null for a routing-only task.",
      ),
    ),
    input: schemaValue("Schema of the task's payload (what it sends: fetch body, external input, child input)."),
    output: schemaValue("Schema of `outputs.<id>`, what the task exports."),
    result: schemaValue("Schema of `self.result`, what the action answers."),
  },
  ["action_type"],
);

const VALIDATE_RESULT = responseObject(
  {
    process: str("Process name."),
    version: int("The version this definition would get if registered now.", { minimum: 1, maximum: MAX_VERSION }),
    process_input: schemaValue("Schema of the instance input (the conformed `input_schema`, `{}` when none)."),
    process_output: schemaValue("Inferred schema of the instance output."),
    tasks: { type: "object", description: "Inferred schemas per task id.", additionalProperties: TASK_SCHEMAS },
    $defs: {
      type: "object",
      description: "Shared schemas referenced as `#/$defs/<name>` by the schemas above.",
      additionalProperties: schemaValue("A shared schema."),
    },
  },
  ["process", "version", "process_input", "process_output", "tasks"],
);

function selector(side: string): JsonSchema {
  return {
    description: `The ${side} set of versions; exactly one of \`channel\`, \`definitions\`, \`versions\`.`,
    oneOf: [
      strictObject(
        { channel: str("Every process on this channel, at the version it points at.", { minLength: 1 }) },
        ["channel"],
        { title: "ChannelSelector" },
      ),
      strictObject(
        { definitions: arrayOf(DEFINITION_BODY, "Unsaved definitions; they report version null.", { minItems: 1 }) },
        ["definitions"],
        { title: "DefinitionsSelector" },
      ),
      strictObject(
        {
          versions: {
            type: "object",
            description: "Process name → a version number or a channel name.",
            minProperties: 1,
            additionalProperties: {
              type: ["integer", "string"],
              description: "A version number (≥ 1) or a channel name.",
              minimum: 1,
              minLength: 1,
            },
          },
        },
        ["versions"],
        { title: "VersionsSelector" },
      ),
    ],
  };
}

const COMPAT_BODY = strictObject(
  {
    from: selector("current"),
    to: selector("candidate"),
    process: processName("Compare only this process (and nothing else of the selected sets)."),
    ignore: arrayOf(
      str("A check member to excuse.", { enum: ["contract"] }),
      "Members excused from `passes`; only `contract` is accepted.",
      { uniqueItems: true },
    ),
  },
  ["from", "to"],
);

const COMPAT_ISSUE = responseObject(
  {
    member: str("Which check found it.", { enum: ["upgrade", "contract"] }),
    address: str("Where in the process, e.g. `tasks.charge.output`."),
    path: str("Where inside the schema at that address."),
    message: str("What changed and why it matters."),
    gating: bool(
      "Whether this issue makes its member incompatible; false for a doubt the shape check cannot settle, and for every issue of a member excused by `ignore`.",
    ),
  },
  ["member", "address", "path", "message", "gating"],
);

const COMPAT_REPORT = responseObject(
  {
    name: str("Process name."),
    status: str("`compared`, or why no comparison was possible (`only_in_from`, `only_in_to`)."),
    from: nullable(int("The version compared from; null for an unsaved definition or a process absent from `from`.")),
    to: nullable(int("The version compared to; null for an unsaved definition or a process absent from `to`.")),
    upgrade: responseObject({ compatible: bool("Whether an instance of `from` can continue under `to`.") }, [
      "compatible",
    ]),
    contract: responseObject(
      { compatible: bool("Whether `to` still honours the input and output contract of `from`.") },
      ["compatible"],
    ),
    changed: arrayOf(
      responseObject(
        {
          address: str("What changed, e.g. `tasks.charge.output`."),
          task: nullable(str("The task id, null for a process-level address.")),
        },
        ["address", "task"],
      ),
      "Every address whose schema differs.",
    ),
    issues: arrayOf(COMPAT_ISSUE, "Every problem found."),
  },
  ["name", "status", "from", "to", "upgrade", "contract", "changed", "issues"],
  { title: "CompatReport" },
);

const COMPAT_RESPONSE = responseObject(
  {
    compatible: bool("Whether every compared process is compatible on both members."),
    passes: bool(
      "False only where a gating check of a member not in `ignore` broke; equals `compatible` when `ignore` is empty. The issues of an ignored member are reported with `gating: false`.",
    ),
    processes: nullable(arrayOf(COMPAT_REPORT, "One report per process.")),
    schedule_warnings: arrayOf(
      responseObject(
        {
          schedule: str("The schedule."),
          process: str("The process it starts."),
          channel: str("The channel it is bound to (`from`)."),
          version: nullable(int("The version it would start; null for an unsaved definition.")),
          message: str("What its input would meet."),
        },
        ["schedule", "process", "channel", "version", "message"],
      ),
      "Extension, present only when not empty (docs/schedules.md): with `from` a channel, the schedules bound to it that would start a `to` version whose input_schema refuses their input.",
    ),
  },
  ["compatible", "passes", "processes"],
  { title: "CompatResponse" },
);

const NAME_PARAMS = strictObject({ name: processName("Process name.") }, ["name"]);

export const definitionActions = [
  action({
    name: "putDefinition",
    method: "put",
    path: "/definitions",
    tag: TAG,
    summary: "Register a process definition",
    description:
      "Validates the definition and stores it as a new version (1 for a new name). Re-putting a definition whose canonical form equals the latest version's stores nothing and answers `saved: false` with the latest version. " +
      "A `version` field in the body is refused: the server numbers versions. Fix every entry listed in `fields` of a 400 and send again.",
    permissions: ["deploy"],
    scope: { by: "body-processes" },
    body: DEFINITION_BODY,
    responses: { 200: { description: "Registered (or unchanged).", schema: PUT_RESPONSE } },
    errors: [400, 500],
    errorDescriptions: { 400: "The definition is invalid; `fields` lists every problem with its path." },
    example: { request: { body: SAMPLE_DEFINITION }, response: { name: "order-fulfilment", saved: true, version: 3 } },
  }),
  action({
    name: "listDefinitions",
    method: "get",
    path: "/definitions",
    tag: TAG,
    summary: "List registered definition versions",
    description:
      "One row per registered version, newest registered first. Filter by process with `name`, by registration time with `created_after` (at or after) and `created_before` (strictly before), in unix milliseconds. " +
      "Sort keys: `created_at` (default, desc), `name`, `version`. Follow `page.next_cursor` with `after` for more.",
    permissions: ["read"],
    scope: { by: "list" },
    query: listQuerySchema(LIST_SORTS.definitions, {
      name: processName("Only versions of this process."),
      created_after: unixMs("Only versions registered at or after this instant (unix ms)."),
      created_before: unixMs("Only versions registered strictly before this instant (unix ms)."),
    }),
    responses: {
      200: {
        description: "A page of definition summaries.",
        schema: pageEnvelopeSchema(DEFINITION_SUMMARY_SCHEMA, "DefinitionPage"),
      },
    },
    errors: [400, 500],
    errorDescriptions: { 400: "A bad filter, sort key, limit or a cursor from another list or order." },
    example: {
      request: { query: { limit: 2, created_after: 1767225600000 } },
      response: {
        items: [
          {
            name: "order-fulfilment",
            version: 3,
            created_at: "2026-01-02T10:00:00.000Z",
            actor: "token:01J9Z3",
            actor_label: "ci deploys",
            raises: ["out_of_stock"],
          },
          { name: "invoice", version: 1, created_at: "2026-01-01T09:00:00.000Z" },
        ],
        page: {
          size: 2,
          items_before: 0,
          items_after: 5,
          sort: "created_at",
          order: "desc",
          next_cursor: "Y3JlYXRlZF9hdDox",
          previous_cursor: null,
        },
      },
    },
  }),
  action({
    name: "putDefinitionBatch",
    method: "put",
    path: "/definitions/batch",
    tag: TAG,
    summary: "Register several definitions and point a channel at them",
    description:
      "Registers every definition (each as in `PUT /definitions`) and points `channel` at the resulting versions, atomically: either all of it happens or none. " +
      "Definitions may reference each other as children; child versions are pinned to the versions of this batch. Each result reports the version the channel pointed at before in `previous` (0 when none).",
    permissions: ["deploy"],
    scope: { by: "body-processes" },
    body: strictObject(
      {
        definitions: arrayOf(DEFINITION_BODY, "The definitions to register, at least one.", { minItems: 1 }),
        channel: str("The channel to point at the registered versions.", { minLength: 1 }),
      },
      ["definitions", "channel"],
    ),
    responses: {
      200: {
        description: "One result per definition, in request order.",
        schema: arrayOf(BATCH_RESULT, "Per-definition results."),
      },
    },
    errors: [400, 500],
    errorDescriptions: {
      400: "A definition is invalid (the paths in `fields` start with its index) or the body is malformed; nothing was saved.",
    },
    example: {
      request: { body: { definitions: [SAMPLE_DEFINITION], channel: "production" } },
      response: [{ name: "order-fulfilment", version: 3, saved: true, previous: 2 }],
    },
  }),
  action({
    name: "validateDefinitions",
    method: "post",
    path: "/definitions/validate",
    tag: TAG,
    summary: "Validate definitions and show their inferred schemas",
    description:
      "Checks definitions exactly as registration would, without saving anything, and answers the inferred JSON Schemas per process: instance input and output, and per task its payload, result and output. " +
      "Use it in CI before deploying, or to see what a task exports.",
    permissions: ["read"],
    scope: { by: "body-processes" },
    body: arrayOf(
      DEFINITION_BODY,
      "The definitions to check, at least one. They may reference each other as children.",
      { minItems: 1 },
    ),
    responses: {
      200: {
        description: "One result per definition, in request order.",
        schema: arrayOf(VALIDATE_RESULT, "Per-process results."),
      },
    },
    errors: [400, 500],
    errorDescriptions: { 400: "A definition is invalid; `fields` lists every problem with its path." },
    example: {
      request: { body: [SAMPLE_DEFINITION] },
      response: [
        {
          process: "order-fulfilment",
          version: 4,
          process_input: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
          process_output: { type: "null" },
          tasks: {
            charge: { action_type: "fetch", input: {}, result: {}, output: { type: "null" } },
            ship: { action_type: "fetch", input: { type: "object" }, result: {}, output: { type: "null" } },
          },
        },
      ],
    },
  }),
  action({
    name: "compatDefinitions",
    method: "post",
    path: "/definitions/compat",
    tag: TAG,
    summary: "Check whether versions are compatible",
    description:
      "Compares two sets of versions, process by process: **upgrade** (can an instance sitting on any task of `from` continue under `to`) and **contract** (does `to` accept every input of `from` and promise no more than `from` in its output). " +
      "Name each set by `channel`, by unsaved `definitions`, or by `versions` (process → version number or channel). It is a shape check: it cannot see a change of meaning. " +
      '`ignore: ["contract"]` excuses the contract member from `passes`, for a deliberate contract change.',
    permissions: ["read"],
    scope: { by: "body-processes" },
    body: COMPAT_BODY,
    responses: { 200: { description: "The comparison.", schema: COMPAT_RESPONSE } },
    errors: [400, 404, 500],
    errorDescriptions: { 404: "A named channel, process or version does not exist." },
    example: {
      request: {
        body: {
          from: { channel: "production" },
          to: { versions: { "order-fulfilment": 4 } },
          process: "order-fulfilment",
        },
      },
      response: {
        compatible: false,
        passes: false,
        processes: [
          {
            name: "order-fulfilment",
            status: "compared",
            from: 3,
            to: 4,
            upgrade: { compatible: false },
            contract: { compatible: true },
            changed: [{ address: "tasks.charge.output", task: "charge" }],
            issues: [
              {
                member: "upgrade",
                address: "tasks.ship.input",
                path: "/properties/amount",
                message: "`ship` now reads outputs.charge.amount, which version 3 never stored",
                gating: true,
              },
            ],
          },
        ],
      },
    },
  }),
  action({
    name: "getDefinition",
    method: "get",
    path: "/definitions/{name}/versions/{version}",
    tag: TAG,
    summary: "Get one stored definition version",
    description:
      "The canonical form of one registered version (shorthands expanded, as the engine runs it), with its summary fields. `version` 0 means the latest version. " +
      "Not in the original interface table: added so that a stored definition can be read back (the CLI's `baton definitions get`).",
    permissions: ["read"],
    scope: { by: "path-process", param: "name" },
    params: strictObject(
      {
        name: processName("Process name."),
        version: int("Version number; 0 = the latest.", { minimum: 0, maximum: MAX_VERSION }),
      },
      ["name", "version"],
    ),
    responses: {
      200: {
        description: "The stored definition.",
        schema: responseObject(
          {
            name: str("Process name."),
            version: int("Version number.", { minimum: 1, maximum: MAX_VERSION }),
            created_at: dateTime("When this version was registered (ISO 8601 UTC)."),
            actor: str("Who registered it."),
            actor_label: ACTOR_LABEL,
            raises: arrayOf(str("An authored error code."), "Every authored error code the process can end with."),
            definition: openObject("The canonical definition."),
          },
          ["name", "version", "created_at", "definition"],
          { title: "StoredDefinition" },
        ),
      },
    },
    errors: [400, 404, 500],
    errorDescriptions: { 404: "No process of that name, or no such version." },
    example: {
      request: { params: { name: "order-fulfilment", version: 3 } },
      response: {
        name: "order-fulfilment",
        version: 3,
        created_at: "2026-11-22T10:00:00.000Z",
        definition: SAMPLE_DEFINITION,
      },
    },
  }),
  action({
    name: "getProcessOpenApi",
    method: "get",
    path: "/definitions/{name}/openapi.json",
    tag: TAG,
    summary: "OpenAPI description for one process",
    description:
      "The OpenAPI 3.1 description narrowed to starting and reading instances of this process, with its latest `input_schema` patched into the start-instance body. Hand it to the team that starts this process, or to a client generator.",
    permissions: ["read"],
    scope: { by: "path-process", param: "name" },
    params: NAME_PARAMS,
    responses: {
      200: {
        description: "An OpenAPI 3.1 document.",
        schema: openObject("An OpenAPI 3.1 document."),
      },
    },
    errors: [400, 404, 500],
    errorDescriptions: { 404: "No process of that name is registered." },
    example: {
      request: { params: { name: "order-fulfilment" } },
      response: { openapi: "3.1.0", info: { title: "Baton API: order-fulfilment", version: "1.0.0" }, paths: {} },
    },
  }),
  action({
    name: "getProcessDocs",
    method: "get",
    path: "/definitions/{name}/docs",
    tag: TAG,
    summary: "Browsable API explorer for one process",
    description:
      "An HTML page showing the per-process OpenAPI description (`GET /definitions/{name}/openapi.json`) in an interactive explorer.",
    permissions: ["read"],
    scope: { by: "path-process", param: "name" },
    params: NAME_PARAMS,
    responses: {
      200: { description: "An HTML page.", contentType: "text/html", schema: { type: "string", description: "HTML." } },
    },
    errors: [400, 404, 500],
    errorDescriptions: { 404: "No process of that name is registered." },
    example: { request: { params: { name: "order-fulfilment" } }, response: "<!doctype html><html>…</html>" },
  }),
];
