import type { ApiCode } from "./action-spec.js";

/** The server answered with an error status; `code` and `message` come from its ErrorBody. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;
  readonly code: ApiCode;
  readonly fields?: { path: string; message: string }[];
  /** The parsed body (or its text when it was not JSON). */
  readonly body: unknown;

  constructor(
    status: number,
    code: ApiCode,
    message: string,
    fields?: { path: string; message: string }[],
    body?: unknown,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    if (fields) this.fields = fields;
    this.body = body;
  }
}

/** The server could not be reached at all (refused, DNS, reset before an answer). */
export class ConnectionError extends Error {
  override readonly name = "ConnectionError";
  readonly server: string;

  constructor(server: string, cause: unknown) {
    super(`cannot reach the Baton server at ${server}: ${reasonOf(cause)}`, { cause });
    this.server = server;
  }
}

function reasonOf(error: unknown): string {
  // undici wraps the socket error: TypeError("fetch failed") with the real reason as `cause`.
  let current: unknown = error;
  for (let depth = 0; depth < 5; depth++) {
    const next = (current as { cause?: unknown } | null)?.cause;
    if (next === undefined || next === null) break;
    current = next;
  }
  if (current instanceof Error) return current.message || (current as { code?: string }).code || current.name;
  return String(current);
}
