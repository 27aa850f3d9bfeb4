import type { Task } from "./definition.js";
import { codeMatches } from "./error-codes.js";

/** Codes whose retry could run an only_once action twice (docs/language.md "only_once"). */
export const NEVER_RETRY_ON_ONLY_ONCE: readonly string[] = [
  "only_once.interrupted",
  "http.timeout",
  "http.disconnected",
  "external.timeout",
];

export interface OnlyOnceProblem {
  /** Path inside the task, e.g. `on_error[1]` or `on_error[1].code[0]`. */
  at: string;
  message: string;
}

/** Retry rules of an only_once task that could double-execute it; empty when the task is not only_once. */
export function onlyOnceProblems(task: Task): OnlyOnceProblem[] {
  if (task.only_once !== true) return [];
  const out: OnlyOnceProblem[] = [];
  task.on_error.forEach((rule, i) => {
    if (rule.retry === undefined || rule.retry.retries === 0) return;
    if (rule.code === undefined) {
      out.push({
        at: `on_error[${i}]`,
        message: "an only_once task cannot retry on a catch-all rule: a retry could run the action twice",
      });
      return;
    }
    rule.code.forEach((pattern, j) => {
      const at = `on_error[${i}].code[${j}]`;
      const unsafe = NEVER_RETRY_ON_ONLY_ONCE.filter((c) => codeMatches(pattern, c));
      if (unsafe.length > 0)
        out.push({
          at,
          message: `an only_once task cannot retry on "${pattern}": it matches ${unsafe.join(", ")}, after which the action may already have run`,
        });
      else if (pattern.startsWith("pre.")) return;
      else if (rule.not_reached === true && !pattern.includes("%")) return;
      else
        out.push({
          at,
          message: `an only_once task can retry on "${pattern}" only with a "pre." pattern (the request never left) or with not_reached: true and an exact code`,
        });
    });
  });
  return out;
}
