import { API_CODE_STATUS, type ApiCode } from "@baton/actions";

export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * The only way a handler reports a client-visible failure. `message` is a sentence a
 * person can act on: what was wrong, where (field path, task id), what was expected.
 * Anything else thrown becomes a 500 `internal` whose body never carries the cause.
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

export const invalid = (message: string, fields?: FieldProblem[]) => new ApiError("invalid", message, { fields });
export const notFound = (message: string) => new ApiError("not_found", message);
export const conflict = (message: string) => new ApiError("conflict", message);
export const unsupported = (message: string) => new ApiError("unsupported", message);

export function errorBody(error: ApiError): { code: ApiCode; error: string; fields?: FieldProblem[] } {
  return error.fields?.length
    ? { code: error.code, error: error.message, fields: error.fields }
    : { code: error.code, error: error.message };
}
