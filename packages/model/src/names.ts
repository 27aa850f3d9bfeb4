// The name rules of docs/language.md ("The document", "Tasks"). Task ids are restricted so that
// they can be written in `$id` gotos and as `outputs.<id>` paths: a letter or `_`, then
// letters, digits, `_` or `-` (a `-` id must be read as `outputs["a-b"]`), at most 64 chars.

export const PROCESS_NAME = /^[a-z0-9][a-z0-9_.-]{0,127}$/;
export const TASK_ID = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
export const RESERVED_TASK_IDS: readonly string[] = ["end", "next"];
/** Authored error codes never contain a dot: dotted codes are the engine's (docs/language.md "Error codes"). */
export const AUTHORED_CODE = /^[a-z][a-z0-9_]*$/;
/** on_error patterns: engine or authored codes with `%` as the only wildcard. */
export const CODE_PATTERN = /^[a-z0-9_.%]+$/;
/** Keys of child_map children and of $defs. */
export const MAP_KEY = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

export function authoredCodeProblem(code: string): string | undefined {
  if (AUTHORED_CODE.test(code)) return undefined;
  if (code.includes("."))
    return `error code "${code}" contains a dot: dotted codes are reserved for engine codes; authored codes are lower_snake_case (^[a-z][a-z0-9_]*$)`;
  return `error code "${code}" is not lower_snake_case (expected ^[a-z][a-z0-9_]*$)`;
}
