// Which failures mean "the database is not there right now" rather than "this request is
// wrong" or "the server has a bug": the HTTP layer answers them 503 `unavailable` with
// Retry-After, and the engine drops the advance and lets its lease expire (docs/engine.md,
// "When the database goes away").

/** Driver and socket codes of a connection that failed, closed, or could not be opened. */
const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs of a server going away or refusing work for now: class 08 (connection exception),
 * 57P01–57P05 (shutdown, crash, starting up, database dropped, idle session), 57014 (statement
 * cancelled: --db-statement-timeout), 25P03 (idle in transaction too long), 53300 (too many connections),
 * 25006 (a write on a node that is not, or no longer, the primary: a standby reached by a failover
 * URL, or a primary fenced read-only; docs/deploy.md "High availability").
 */
function isUnavailableState(state: string): boolean {
  return (
    state.startsWith("08") ||
    /^57P0[1-5]$/.test(state) ||
    state === "57014" ||
    state === "25P03" ||
    state === "53300" ||
    state === "25006"
  );
}

/** Walks `cause` (drizzle wraps driver errors) looking for a connection-level failure. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const { code, name } = e as { code?: unknown; name?: unknown };
    if (typeof code === "string") {
      if (CONNECTION_CODES.has(code)) return true;
      if (name === "PostgresError" && isUnavailableState(code)) return true;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The first `code` along the `cause` chain (a driver code or SQLSTATE), for logs: never the message. */
export function databaseErrorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
