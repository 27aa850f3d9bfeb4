import type { ApiCode, JsonSchema } from "./action-spec.js";
import { API_CODE_STATUS } from "./action-spec.js";

/** The body of every error response (docs/api.md "Errors"). */
export interface ErrorBody {
  code: ApiCode;
  /** A sentence a person can act on. */
  error: string;
  /** Body validation problems, one per offending field. */
  fields?: { path: string; message: string }[];
}

export const API_CODES = Object.keys(API_CODE_STATUS) as ApiCode[];

export const ERROR_BODY_SCHEMA: JsonSchema = {
  title: "ErrorBody",
  type: "object",
  description: "The body of every error response.",
  properties: {
    code: {
      type: "string",
      enum: API_CODES,
      description:
        "Machine code; fixed per HTTP status (invalid 400, unauthenticated 401, forbidden 403, not_found 404, conflict 409, internal 500, unsupported 501, unavailable 503, and 429 for a caller over its share).",
    },
    error: { type: "string", description: "What went wrong and what to do about it, as a sentence." },
    fields: {
      type: "array",
      description: "Present on request validation failures: one entry per offending field.",
      items: {
        type: "object",
        properties: {
          path: {
            type: "string",
            description: "Where the problem is, e.g. `body.tasks[2].on_error[0]` or `query.limit`.",
          },
          message: { type: "string", description: "What was wrong and what was expected." },
        },
        required: ["path", "message"],
      },
    },
  },
  required: ["code", "error"],
};

/**
 * The ApiCode of an HTTP status (the inverse of API_CODE_STATUS); 429 (a caller over its share,
 * docs/api.md "Errors") is `unavailable`, other 4xx are `invalid`, other 5xx `internal`.
 */
export function apiCodeOfStatus(status: number): ApiCode {
  if (status === 429) return "unavailable";
  for (const code of API_CODES) if (API_CODE_STATUS[code] === status) return code;
  return status >= 500 ? "internal" : "invalid";
}
