// The OpenAPI 3.1 document, generated from the registry. The base path `/api` is declared
// once in `servers`. Root entries (healthz) are served at the root and, as an alias, under
// `/api` (docs/api.md "OpenAPI"): generators ignore path-level `servers`, so the document
// describes the `/api` address and no path overrides the base.

import type { ActionSpec, JsonSchema } from "./action-spec.js";
import { API_CODE_STATUS } from "./action-spec.js";
import { ERROR_BODY_SCHEMA, apiCodeOfStatus } from "./error-body.js";
import { TAGS } from "./registry.js";

export type OpenApiDocument = { [key: string]: unknown };

export const API_VERSION = "1.0.0";

const GENERIC_ERROR: Record<number, string> = {
  400: "The request is invalid: the message says what and where; `fields` lists each offending field.",
  401: "Missing or invalid credential: send `Authorization: Bearer <token>`.",
  403: "The credential is valid but lacks a permission this endpoint requires.",
  404: "Not found.",
  409: "Conflict with the current state.",
  413: "The request body is larger than the server's limit (`--max-body`).",
  500: "Internal error; the server logged the details.",
  501: "Not implemented on this server.",
  503: "Unavailable.",
};

const AUTH_STATUSES = [401, 403];

const CALLER_OVER_SHARE =
  "This client address or this credential already has as many requests in progress as the server allows (`--limit-requests-per-address`, `--limit-requests-per-credential`); retry after `Retry-After` seconds";

const DATABASE_UNAVAILABLE =
  "The database is unreachable (stopped, restarting, or a statement ran past the server's timeout); retry after `Retry-After` seconds. A request whose connection died while it committed may have taken effect";

/** The permissions that admit a call, as the description and the extension state them. */
export function admittingPermissions(spec: ActionSpec): string[] {
  if (spec.permissions === "public") return [];
  return [...new Set([...spec.permissions, "admin"])];
}

function permissionSentence(spec: ActionSpec): string {
  if (spec.permissions === "public") return "Needs no credential.";
  return `Requires one of: ${admittingPermissions(spec).join(", ")}.`;
}

function errorResponse(status: number, text: string): unknown {
  const code = apiCodeOfStatus(status);
  return {
    description: `${text} (code \`${code}\`)`,
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } },
  };
}

function parameters(spec: ActionSpec): unknown[] {
  const out: unknown[] = [];
  const examples = spec.example?.request ?? {};
  for (const [location, schema, example] of [
    ["path", spec.params, examples.params],
    ["query", spec.query, examples.query],
    ["header", spec.headers, undefined],
  ] as const) {
    if (!schema) continue;
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema.required ?? []) as string[]);
    for (const [name, property] of Object.entries(properties)) {
      const { description, ...rest } = property;
      const parameter: Record<string, unknown> = {
        name,
        in: location,
        required: location === "path" || required.has(name),
        description,
        schema: rest,
      };
      if (example && name in example) parameter.example = example[name];
      out.push(parameter);
    }
  }
  return out;
}

/** Whether the server reads a request body for this entry (and so may answer 413). */
export function readsBody(spec: ActionSpec): boolean {
  return spec.body !== undefined || spec.method === "post" || spec.method === "put" || spec.method === "delete";
}

function operation(spec: ActionSpec): Record<string, unknown> {
  const successStatuses = Object.keys(spec.responses).map(Number);
  const exampleStatus = spec.example?.status ?? successStatuses[0];
  const responses: Record<string, unknown> = {};
  for (const status of successStatuses) {
    const response = spec.responses[status];
    if (!response.schema) {
      responses[status] = { description: response.description };
      continue;
    }
    const media: Record<string, unknown> = { schema: response.schema };
    if (spec.example && "response" in spec.example && status === exampleStatus) media.example = spec.example.response;
    responses[status] = {
      description: response.description,
      content: { [response.contentType ?? "application/json"]: media },
    };
  }
  const errorStatuses = [
    ...new Set([
      ...spec.errors,
      ...(spec.permissions === "public" ? [] : AUTH_STATUSES),
      ...(readsBody(spec) ? [413] : []),
    ]),
  ].sort((a, b) => a - b);
  for (const status of errorStatuses) {
    if (responses[status]) continue; // a declared response (healthz 503) describes that status itself
    responses[status] = errorResponse(status, spec.errorDescriptions?.[status] ?? GENERIC_ERROR[status] ?? "Error.");
  }
  // Extension (docs/limits.md "Callers"): every endpoint but the probes answers 429 to a caller over its share.
  if (spec.permissions !== "public")
    responses[429] ??= {
      ...(errorResponse(429, CALLER_OVER_SHARE) as object),
      headers: {
        "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 1 } },
      },
    };
  // Extension (docs/api.md): every endpoint needs the database, and answers 503 while it is unreachable.
  responses[503] ??= {
    ...(errorResponse(503, DATABASE_UNAVAILABLE) as object),
    headers: {
      "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 1 } },
    },
  };

  const op: Record<string, unknown> = {
    operationId: spec.name,
    tags: [spec.tag],
    summary: spec.summary,
    description: `${spec.extension ? '**Extension** (beyond the core interface, docs/api.md "Extensions"). ' : ""}${spec.description}\n\n${permissionSentence(spec)}`,
  };
  if (spec.extension) op["x-baton-extension"] = true;
  const params = parameters(spec);
  if (params.length > 0) op.parameters = params;
  if (spec.body) {
    const media: Record<string, unknown> = { schema: spec.body };
    const request = spec.example?.request;
    if (request && "body" in request) media.example = request.body;
    op.requestBody = { required: !spec.bodyOptional, content: { "application/json": media } };
  }
  op.responses = responses;
  op.security = spec.permissions === "public" ? [] : [{ bearerAuth: [] }];
  op["x-baton-permissions"] = admittingPermissions(spec);
  op["x-baton-scope"] = spec.scope;
  return op;
}

const DESCRIPTION = [
  "The HTTP interface of Baton, a durable business-process orchestrator: register process definitions, point channels at versions, run and control instances, serve external-task workers, manage API tokens.",
  "",
  "Every path is relative to `/api`. The readiness probe lives at the server root, `/healthz`; it is also served at `/api/healthz`, the address this document gives it, so generated clients reach it with the same base URL. Bodies are JSON; numbers are exact (integers beyond 2^53 and long decimals survive unchanged).",
  "",
  "Authenticate with `Authorization: Bearer <credential>`: an `svc_sk_` API token or a JWT minted by the sign-in proxy. Each operation states the permissions that admit it; `admin` admits everything. A server started with `--auth none` reads no credential.",
  "",
  `Errors answer with an \`ErrorBody\` \`{code, error, fields?}\`; \`code\` is fixed per status: ${Object.entries(
    API_CODE_STATUS,
  )
    .map(([code, status]) => `${status} ${code}`)
    .join(", ")}.`,
  "",
  "Lists are paginated: `limit` (default 20, cap 100: a larger value is clamped), `sort` and `order` from each endpoint's whitelist, and opaque cursors `after`/`before` taken from `page.next_cursor`/`page.previous_cursor`.",
  "",
  "The main resources are named schemas under `components.schemas` (`InstanceDetail`, `LogEntry`, `ExternalTask`, …). A free-form object (a definition, an input, state, log `data`, a schema carried as data) is an open map: `additionalProperties: {}`.",
].join("\n");

/** The OpenAPI 3.1 document of every entry of `registry`. */
export function buildOpenApi(registry: readonly ActionSpec[]): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of registry) {
    const item = (paths[spec.path] ??= {});
    if (item[spec.method]) throw new Error(`two registry entries declare ${spec.method.toUpperCase()} ${spec.path}`);
    item[spec.method] = operation(spec);
  }
  const schemas: Record<string, unknown> = { ErrorBody: ERROR_BODY_SCHEMA };
  for (const item of Object.values(paths))
    for (const op of Object.values(item) as Array<Record<string, any>>) {
      for (const media of Object.values(op.requestBody?.content ?? {}) as Array<Record<string, unknown>>)
        media.schema = hoistTitled(media.schema, schemas);
      for (const response of Object.values(op.responses ?? {}) as Array<Record<string, any>>)
        for (const media of Object.values(response.content ?? {}) as Array<Record<string, unknown>>)
          media.schema = hoistTitled(media.schema, schemas);
    }
  const usedTags = new Set(registry.map((spec) => spec.tag));
  // Cloned: callers patch the document (buildProcessOpenApi, the api) and must not reach the registry's schemas.
  return structuredClone({
    openapi: "3.1.0",
    info: { title: "Baton API", version: API_VERSION, description: DESCRIPTION },
    servers: [{ url: "/api" }],
    tags: TAGS.filter((tag) => usedTags.has(tag.name)),
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "An `svc_sk_` API token, or a JWT minted by the sign-in proxy.",
        },
      },
    },
    security: [{ bearerAuth: [] }],
  });
}

// Keywords whose values are data, not schemas: never walked for titles.
const DATA_KEYWORDS = new Set(["example", "examples", "default", "enum", "const"]);

/**
 * `schema` with every titled sub-schema moved to `components` under its title and replaced by a
 * `$ref`, so generated clients name the resources (`InstanceDetail`). One title, one schema: two
 * different schemas under one title is a registry mistake and throws.
 */
function hoistTitled(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => hoistTitled(s, components));
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (key === "properties" && value !== null && typeof value === "object")
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, hoistTitled(s, components)]));
    else out[key] = hoistTitled(value, components);
  }
  if (typeof out.title !== "string") return out;
  const name = out.title;
  const existing = components[name];
  if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(out))
    throw new Error(`two different schemas are titled "${name}"; give one another title`);
  components[name] = out;
  return { $ref: `#/components/schemas/${name}` };
}
