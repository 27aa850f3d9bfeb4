// How an endpoint is scoped (docs/auth.md "Scopes"): every registry entry declares one rule,
// and the API's one authorization function (apps/api/src/auth/scope.ts) enforces it. A
// credential without scopes reaches everything, whatever the rule; the rules say what a
// credential WITH scopes (process-name patterns such as `orders-*`, `billing`) reaches.
// Adding a kind here means teaching auth/scope.ts and the matrix test
// (apps/api/test/server/auth/scope-matrix.test.ts) what it means.

/**
 * A scope pattern (docs/auth.md "Scopes"): a process name (`billing`), a prefix of one and a
 * trailing star (`orders-*`), or `*` alone (every process). The star is only ever trailing, so a
 * pattern is a name or a prefix and a list filter stays an index lookup.
 */
export const SCOPE_PATTERN_SOURCE = "^(?:\\*|[a-z0-9][a-z0-9_.-]{0,127}\\*?)$";
/** Scope patterns on one credential at most (a token's `scopes`, a JWT's scope claim). */
export const SCOPES_MAX = 64;

export type ScopeRule =
  /** Reaches no process (probes, whoami): open to every credential whatever its scopes. */
  | { by: "none" }
  /** Reaches every process at once (tick, metrics): a scoped credential is refused (403). */
  | { by: "unscoped" }
  /** A path parameter names the process: out of scope answers 404, as an unknown process does. */
  | { by: "path-process"; param: string }
  /** A body field names the process: out of scope is refused (403) naming the field; nothing is read. */
  | { by: "body-process"; field: string }
  /** A path parameter is an instance id: its root's process decides; out of scope answers 404 as a missing id. */
  | { by: "instance"; param: string }
  /** A list or count: only rows whose (root's) process the scopes cover, filtered in the query. */
  | { by: "list" }
  /**
   * The body names several processes (a batch, promote, compat, validate): the handler checks
   * every one and refuses the whole request (403) naming the first out-of-scope part the
   * caller itself sent; nothing of another scope is read into the answer.
   */
  | { by: "body-processes" }
  /** A claim token or an instance id of an external task: one outside the scopes is unknown (or `lost`). */
  | { by: "external-task" }
  /** An object ref: found only when the caller can read an instance holding it. */
  | { by: "object" }
  /** A schedule (path parameter): its target process decides, as for `path-process`. */
  | { by: "schedule"; param: string }
  /** Tokens: a scoped admin sees, mints and revokes only tokens within its own scopes. */
  | { by: "tokens" };

export type ScopeKind = ScopeRule["by"];

export const SCOPE_KINDS: readonly ScopeKind[] = [
  "none",
  "unscoped",
  "path-process",
  "body-process",
  "instance",
  "list",
  "body-processes",
  "external-task",
  "object",
  "schedule",
  "tokens",
];

/**
 * Whether scope patterns reach a process (docs/auth.md "Scopes"): a pattern is a name, or a
 * prefix and a trailing `*`; `null` (no scopes) reaches every process. The one matcher of the
 * API's authorization and of settings granted to scopes (docs/security.md "The secret model").
 */
export function scopesCover(patterns: readonly string[] | null, process: string): boolean {
  return (
    patterns === null || patterns.some((p) => (p.endsWith("*") ? process.startsWith(p.slice(0, -1)) : process === p))
  );
}
