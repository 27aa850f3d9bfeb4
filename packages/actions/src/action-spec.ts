// The shape of one registry entry. The registry (registry.ts) is the ONLY place an endpoint
// is declared: the api app builds its routes, permission checks and request validation
// from it, the OpenAPI document is generated from it, and the typed client calls by name.

import type { ScopeRule } from "./scope-rule.js";

export type Permission = "worker" | "read" | "operate" | "deploy" | "admin";
export const PERMISSIONS: readonly Permission[] = ["worker", "read", "operate", "deploy", "admin"];

export type JsonSchema = { [keyword: string]: unknown };

export type HttpMethod = "get" | "post" | "put" | "delete";

export type ApiCode =
  | "invalid"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "internal"
  | "unsupported"
  | "unavailable";

/** The HTTP status of each ApiCode (docs/api.md "Errors"). */
export const API_CODE_STATUS: Record<ApiCode, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  internal: 500,
  unsupported: 501,
  unavailable: 503,
};

export interface ActionSpec {
  /** operationId, camelCase, unique: e.g. "putDefinition". */
  name: string;
  method: HttpMethod;
  /** OpenAPI path template, relative to `/api`. */
  path: string;
  /** Also served at the server root, where probes and scrapers expect it (`/healthz`, `/metrics`); `/api<path>` is its documented address. */
  root?: boolean;
  /**
   * Beyond the specified interface (docs/api.md "Extensions"): the OpenAPI document marks it
   * `x-baton-extension` and says so in its description. The specified endpoints never set it.
   */
  extension?: boolean;
  tag: string;
  summary: string;
  description: string;
  /**
   * Any one admits the call; `admin` always does. `[]` = declares nothing = admin only.
   * "public" = no credential needed (healthz).
   */
  permissions: Permission[] | "public";
  /**
   * Which processes the call reaches, and so how a scoped credential is limited
   * (scope-rule.ts, docs/auth.md "Scopes"). Required: an endpoint that does not say how it is
   * scoped does not compile (and registry.test.ts checks each rule's parameter exists).
   */
  scope: ScopeRule;
  /** Object schema of the path parameters. */
  params?: JsonSchema;
  /**
   * Object schema of the request headers the endpoint reads (string values; names as sent,
   * matched case-insensitively). Documented as `in: header` parameters; the handler validates them.
   */
  headers?: JsonSchema;
  /** Object schema of the query parameters (strings on the wire, coerced to the declared types). */
  query?: JsonSchema;
  /** Request body schema; strict (additionalProperties false) wherever the body is an object. */
  body?: JsonSchema;
  /** The body may be omitted entirely (the api then validates `{}`); default: required when `body` is set. */
  bodyOptional?: boolean;
  /** Success responses by status. A response without schema has no body (204). */
  responses: { [status: number]: ActionResponseSpec };
  /** Error statuses this endpoint can answer with (docs/api.md "Endpoints and their statuses"). */
  errors: number[];
  /** What a given error status means on this endpoint, when more can be said than the generic text. */
  errorDescriptions?: { [status: number]: string };
  example?: ActionExample;
}

export interface ActionResponseSpec {
  description: string;
  schema?: JsonSchema;
  /** Media type of the body; default "application/json". */
  contentType?: string;
}

/** One worked call. `request` holds the already-typed values (query values as numbers/booleans, not wire strings). */
export interface ActionExample {
  request?: { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
  /** The success status the example response goes with; default the first declared success status. */
  status?: number;
  response?: unknown;
}
