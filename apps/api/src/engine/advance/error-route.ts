import { type AuthoredError, type ErrorRule, findErrorRule, retryDelayMs, type Task } from "@baton/model";

export type ErrorRoute =
  | { kind: "retry"; rule: ErrorRule; attempt: number; waitMs: number }
  | { kind: "goto"; target: "end" | `$${string}` }
  | { kind: "raise"; error: AuthoredError }
  | { kind: "panic"; error: AuthoredError }
  | { kind: "fail" };

// Codes after which the request may have reached the upstream: an only_once task never repeats them.
function retryAllowed(task: Task, rule: ErrorRule, code: string): boolean {
  if (code === "only_once.interrupted") return false;
  if (!task.only_once) return true;
  return code.startsWith("pre.") || rule.not_reached === true;
}

/**
 * docs/language.md#on-error: the first matching rule wins; it retries while its budget lasts (one counter per
 * task visit, `retriesScheduled` so far), then takes its goto/raise/panic, else the instance fails.
 */
export function routeError(
  task: Task,
  code: string,
  retriesScheduled: number,
  random: () => number = Math.random,
): ErrorRoute {
  const rule = findErrorRule(task, code);
  if (rule === undefined) return { kind: "fail" };
  if (rule.retry !== undefined && retriesScheduled < rule.retry.retries && retryAllowed(task, rule, code)) {
    const attempt = retriesScheduled + 1;
    return { kind: "retry", rule, attempt, waitMs: retryDelayMs(rule.retry, attempt, random) };
  }
  if (rule.goto !== undefined) return { kind: "goto", target: rule.goto };
  if (rule.raise !== undefined) return { kind: "raise", error: rule.raise };
  if (rule.panic !== undefined) return { kind: "panic", error: rule.panic };
  return { kind: "fail" };
}
