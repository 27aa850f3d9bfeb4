// How an endpoint is scoped (docs/auth.md "Scopes"): every registry entry declares one rule,
// and the API's one authorization function (apps/api/src/auth/scope.ts) enforces it. A
// credential without scopes reaches everything, whatever the rule; the rules say what a
// credential WITH scopes (process-name patterns such as `orders-*`, `billing`) reaches.
// Adding a kind here means teaching auth/scope.ts and the matrix test
// (apps/api/test/server/auth/scope-matrix.test.ts) what it means.

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
