// Inbound hooks (extension, docs/events.md "Hooks"): signed requests from other systems that
// start a process or signal a waiting task. The hook's signature is its credential.
import { HOOK_VERIFIERS } from "../hook-types.js";
import { LIST_SORTS, listQuerySchema, pageEnvelopeSchema } from "../pagination.js";
import {
  anyJson,
  arrayOf,
  dateTime,
  int,
  nullable,
  openObject,
  processName,
  responseObject,
  str,
  strictObject,
  bool,
  schemaValue,
} from "../schema.js";
import { action } from "./define.js";

const TAG = "hooks";
const NAME_PARAMS = strictObject(
  {
    name: str("Hook name: lower-case letters, digits, `_`, `.`, `-`; at most 128.", {
      pattern: "^[a-z0-9][a-z0-9_.-]{0,127}$",
    }),
  },
  ["name"],
);
const NOT_FOUND = { 404: "No hook has this name." };
const HEADER_NAME = (d: string) => str(d, { pattern: "^[A-Za-z0-9-]{1,64}$" });

const START = strictObject(
  {
    process: processName("The process to start."),
    channel: str("Start the version this channel points at when the request arrives (else the latest).", {
      minLength: 1,
      maxLength: 128,
    }),
    input: anyJson(
      "A shape over `body`, `headers` (lower-case names) and `query`; type-checked against the target's `input_schema`. Default `{}`.",
    ),
    business_key: str("An expression (`$: …`) or text: the started instance's business key.", { maxLength: 1024 }),
  },
  ["process"],
);
const SIGNAL = strictObject(
  {
    process: processName("The process of the waiting instance."),
    task: str("The external task to signal.", { minLength: 1, maxLength: 128 }),
    business_key: str("An expression (`$: …`) or text: the business key of the instance to signal.", {
      minLength: 1,
      maxLength: 1024,
    }),
    result: anyJson("A shape over `body`, `headers` and `query`: the task's result. Default the body."),
  },
  ["process", "task", "business_key"],
);

const HOOK = responseObject(
  {
    name: str("The hook's name."),
    path: str("Where senders POST: `/api/hooks/{name}`."),
    verifier: str("How a request is verified.", { enum: [...HOOK_VERIFIERS] }),
    header: nullable(str("`header` verifier: the header carrying the secret.")),
    id_header: nullable(str("`header` verifier: the header naming each delivery.")),
    tolerance_ms: int("Largest distance between a signed timestamp and now."),
    body_schema: nullable(openObject("The JSON Schema of the body.")),
    start: nullable(openObject("What a request starts.")),
    signal: nullable(openObject("What a request signals.")),
    actor: nullable(str("Who created or last replaced it.")),
    created_at: dateTime("Created."),
    updated_at: dateTime("Last changed."),
    last_requests: arrayOf(
      responseObject(
        {
          delivery_id: str("The sender's delivery id."),
          received_at: dateTime("When it was acted on."),
          outcome: str("started, signalled or failed.", { enum: ["started", "signalled", "failed"] }),
          instance_id: nullable(str("The instance started or signalled.")),
          detail: nullable(str("Why it failed.")),
        },
        ["delivery_id", "received_at", "outcome", "instance_id", "detail"],
      ),
      "The single view: the last requests it acted on, newest first.",
    ),
  },
  ["name", "path", "verifier", "tolerance_ms", "created_at", "updated_at"],
  { title: "Hook" },
);
const EXAMPLE = {
  name: "github-push",
  path: "/api/hooks/github-push",
  verifier: "github",
  header: null,
  id_header: null,
  tolerance_ms: 300000,
  body_schema: {
    type: "object",
    properties: {
      after: { type: "string" },
      repository: { type: "object", properties: { full_name: { type: "string" } } },
    },
  },
  start: { process: "build", input: { repo: "$: body.repository.full_name", sha: "$: body.after" } },
  signal: null,
  actor: "deployer",
  created_at: "2026-12-07T10:00:00.000Z",
  updated_at: "2026-12-07T10:00:00.000Z",
};

export const hookActions = [
  action({
    name: "putHook",
    method: "put",
    path: "/hooks/{name}",
    tag: TAG,
    extension: true,
    summary: "Create or replace a hook",
    description:
      "A hook verifies requests POSTed to `/api/hooks/{name}` (Standard Webhooks, GitHub, Stripe or a shared-secret header) " +
      "and starts a process or signals a waiting task. Exactly one of `start` and `signal`. The secret is never shown. See docs/events.md.",
    permissions: ["deploy"],
    scope: { by: "unscoped" },
    params: NAME_PARAMS,
    body: strictObject(
      {
        verifier: str("How a request is verified.", { enum: [...HOOK_VERIFIERS] }),
        secret: str("The secret the sender signs with (or sends, for `header`); never shown.", {
          minLength: 16,
          maxLength: 256,
        }),
        header: HEADER_NAME("`header` verifier: the request header that carries the secret."),
        id_header: HEADER_NAME("`header` verifier: the request header naming each delivery."),
        body_schema: schemaValue(
          "The JSON Schema (docs/language.md subset) of the body: it types what the shapes read, and a verified body that does not match is refused with 400.",
        ),
        tolerance_ms: int(
          "Largest distance between a signed timestamp and now, in ms (default 300000, at most 3600000).",
          {
            minimum: 1000,
            maximum: 3_600_000,
          },
        ),
        start: START,
        signal: SIGNAL,
      },
      ["verifier", "secret"],
      { title: "HookBody" },
    ),
    responses: {
      200: {
        description: "The hook as stored; `created` is false for a replace.",
        schema: {
          ...HOOK,
          title: "HookPut",
          properties: { ...(HOOK.properties as object), created: bool("A new hook.") },
        },
      },
    },
    errors: [400, 409, 500],
    errorDescriptions: {
      400: "A field is invalid: the verifier's settings, the target, or a shape that does not fit the target's `input_schema`.",
      409: "Creating it would pass `--limit-hooks`.",
    },
    example: {
      request: {
        params: { name: "github-push" },
        body: {
          verifier: "github",
          secret: "a-long-shared-secret",
          body_schema: EXAMPLE.body_schema,
          start: EXAMPLE.start,
        },
      },
      response: { ...EXAMPLE, created: true },
    },
  }),
  action({
    name: "listHooks",
    method: "get",
    path: "/hooks",
    tag: TAG,
    extension: true,
    summary: "List hooks",
    description: "Every hook, by name; secrets are never shown.",
    permissions: ["read"],
    scope: { by: "unscoped" },
    query: listQuerySchema(LIST_SORTS.hooks),
    responses: { 200: { description: "A page of hooks.", schema: pageEnvelopeSchema(HOOK, "HookPage") } },
    errors: [400, 500],
    example: {
      request: {},
      response: {
        items: [EXAMPLE],
        page: {
          size: 1,
          items_before: 0,
          items_after: 0,
          sort: "name",
          order: "asc",
          next_cursor: null,
          previous_cursor: null,
        },
      },
    },
  }),
  action({
    name: "getHook",
    method: "get",
    path: "/hooks/{name}",
    tag: TAG,
    extension: true,
    summary: "Show a hook",
    description: "The hook and the last requests it acted on.",
    permissions: ["read"],
    scope: { by: "unscoped" },
    params: NAME_PARAMS,
    responses: { 200: { description: "The hook.", schema: HOOK } },
    errors: [400, 404, 500],
    errorDescriptions: NOT_FOUND,
    example: { request: { params: { name: "github-push" } }, response: { ...EXAMPLE, last_requests: [] } },
  }),
  action({
    name: "deleteHook",
    method: "delete",
    path: "/hooks/{name}",
    tag: TAG,
    extension: true,
    summary: "Delete a hook",
    description: "Deletes the hook and its request records; what it started is untouched.",
    permissions: ["deploy"],
    scope: { by: "unscoped" },
    params: NAME_PARAMS,
    responses: {
      200: {
        description: "Whether a hook was deleted.",
        schema: responseObject({ deleted: bool("False when there was none.") }, ["deleted"]),
      },
    },
    errors: [400, 500],
    example: { request: { params: { name: "github-push" } }, response: { deleted: true } },
  }),
  action({
    name: "receiveHook",
    method: "post",
    path: "/hooks/{name}",
    tag: TAG,
    extension: true,
    summary: "Deliver a signed request to a hook",
    description:
      "For senders: no bearer token; the request's signature is the credential. A request that is not verified — unknown hook, " +
      "missing or wrong signature, stale timestamp — gets 401 with nothing about why. Answers 200 once the start or signal is " +
      "committed; a delivery id acted on before is answered `duplicate: true` and nothing is done again.",
    permissions: "public",
    scope: { by: "none" },
    params: NAME_PARAMS,
    query: { type: "object", additionalProperties: { type: "string" } },
    responses: {
      200: {
        description: "What the request did.",
        schema: responseObject(
          {
            delivery_id: str("The sender's delivery id."),
            duplicate: bool("Acted on before: nothing was done again."),
            outcome: str("started, signalled or failed.", { enum: ["started", "signalled", "failed"] }),
            instance_id: nullable(str("The instance started or signalled.")),
          },
          ["delivery_id", "duplicate", "outcome", "instance_id"],
          { title: "HookReceipt" },
        ),
      },
    },
    errors: [400, 401, 413, 500],
    errorDescriptions: {
      401: "Not verified (the body says nothing more).",
      413: "The body is larger than `--limit-hook-body-bytes`.",
      400: "Verified, but the body is not JSON, or the start or signal was refused (its reason).",
    },
    example: {
      request: { params: { name: "github-push" } },
      response: {
        delivery_id: "72d3162e-cc78-11e3-81ab-4c9367dc0958",
        duplicate: false,
        outcome: "started",
        instance_id: "0193a9a2-7c1e-7b53-9d0e-2f1c1a4b5c6d",
      },
    },
  }),
];
