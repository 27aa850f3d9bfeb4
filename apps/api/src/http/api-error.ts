import { API_CODE_STATUS, type ApiCode } from "@baton/actions";

import { type FieldProblem, Refusal } from "../refusal.js";

/**
 * A client-visible failure as HTTP sends it. Domain code throws a Refusal (refusal.ts) instead;
 * only the HTTP edge (http/, auth/) builds an ApiError directly, for failures that are about the
 * request itself (credentials, permissions, body size, JSON syntax). Anything else thrown becomes
 * a 500 `internal` whose body never carries the cause.
 */
export class ApiError extends Error {
  readonly code: ApiCode;
  readonly fields?: FieldProblem[];
  /** Overrides the status of `code` (413 for an over-size body, which is still `invalid`). */
  readonly status: number;
  readonly headers?: Record<string, string>;

  constructor(
    code: ApiCode,
    message: string,
    options: { fields?: FieldProblem[]; status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.code = code;
    this.fields = options.fields;
    this.status = options.status ?? API_CODE_STATUS[code];
    this.headers = options.headers;
  }
}

/** The one mapping from a domain refusal to its ApiCode and status; undefined for anything else. */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof Refusal)
    return new ApiError(error.kind, error.message, {
      fields: error.fields,
      // A refusal for now, not for the request: the caller may send it again in a second.
      ...(error.kind === "unavailable" ? { headers: { "retry-after": "1" } } : {}),
    });
  return undefined;
}

export function errorBody(error: ApiError): { code: ApiCode; error: string; fields?: FieldProblem[] } {
  return error.fields?.length
    ? { code: error.code, error: error.message, fields: error.fields }
    : { code: error.code, error: error.message };
}
