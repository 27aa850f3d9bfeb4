import type { Task } from "./definition.js";

/** Engine codes a fetch can fail with besides `http.<status>` (docs/language.md "Error codes"). */
export const FETCH_CODES: readonly string[] = [
  "pre.error",
  "pre.timeout",
  "http.timeout",
  "http.disconnected",
  "output.parse",
  "output.too_large",
  "output.invalid",
];
const HTTP_STATUS_CODE = /^http\.[1-5]\d\d$/;

/**
 * Why an exact on_error code (no `%`) can never reach the task, or undefined when it can.
 * Wildcards are not judged; which authored codes children raise is checked where the registry is known.
 */
export function unreachableCodeReason(task: Task, code: string): string | undefined {
  if (code.includes("%")) return undefined;
  if (code === "only_once.interrupted")
    return task.only_once === true ? undefined : "only an only_once task can be interrupted";
  switch (task.action?.type) {
    case "fetch":
      if (HTTP_STATUS_CODE.test(code) || FETCH_CODES.includes(code)) return undefined;
      return `a fetch task fails only with http.<status>, ${FETCH_CODES.join(", ")}`;
    case "external": {
      const raises = Object.keys(task.raises ?? {});
      if (code === "external.timeout" || raises.includes(code)) return undefined;
      return `an external task fails only with external.timeout or a code of its raises${raises.length > 0 ? ` (${raises.join(", ")})` : " (it declares none)"}`;
    }
    case "child":
    case "child_map":
    case "child_list":
      // Raised children are matched by their authored codes; a failed child is never caught.
      if (!code.includes(".") || code === "output.invalid") return undefined;
      return "a child task catches only codes its children raise, and output.invalid";
    default:
      return undefined;
  }
}
