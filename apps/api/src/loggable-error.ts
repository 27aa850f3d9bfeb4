// What of an error may be written to the log. drizzle wraps every failed statement in a
// DrizzleQueryError whose message is "Failed query: <sql>\nparams: <every parameter>": the
// parameters of an advance batch are other instances' state, and config values marked
// `secret: true` travel in them. A log line must never carry them (docs/engine.md "Log events"), so
// every logged error goes through errorText / errorStack, which keep the driver's own
// message (what went wrong) and drop the statement and its parameters.

interface QueryError extends Error {
  query: string;
  params: unknown[];
}

function isQueryError(error: unknown): error is QueryError {
  return error instanceof Error && "query" in error && "params" in error;
}

/** The error that says what went wrong: the driver's, under any query wrappers. */
function rootOf(error: unknown): unknown {
  let e = error;
  for (let i = 0; i < 8 && isQueryError(e) && e.cause !== undefined; i++) e = e.cause;
  return e;
}

/** A one-line description of `error` that is safe to log (no SQL text, no parameters). */
export function errorText(error: unknown): string {
  const root = rootOf(error);
  if (isQueryError(root)) return "a database statement failed";
  if (root instanceof Error) return root.message;
  return String(root);
}

/** `error`'s stack with its message replaced by errorText (a stack's first line repeats the message). */
export function errorStack(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.stack === undefined) return undefined;
  const frames = error.stack.split("\n").filter((line) => /^\s+at /.test(line));
  return [`${error.name}: ${errorText(error)}`, ...frames].join("\n");
}
