import type { ErrorRule, Task } from "./definition.js";

/** Codes produced by the engine for its own faults: never caught by on_error (LANGUAGE §5). */
export function isEngineFault(code: string): boolean {
  return code.startsWith("engine.");
}

const patternCache = new Map<string, RegExp>();

/** `%` is the only wildcard and matches any run of characters (also none). */
export function codeMatches(pattern: string, code: string): boolean {
  if (!pattern.includes("%")) return pattern === code;
  let re = patternCache.get(pattern);
  if (re === undefined) {
    const body = pattern
      .split("%")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    re = new RegExp(`^${body}$`, "s");
    if (patternCache.size > 1000) patternCache.clear();
    patternCache.set(pattern, re);
  }
  return re.test(code);
}

/** The first rule whose pattern matches (a rule without `code` matches everything); engine.* codes never match. */
export function findErrorRule(task: Task, code: string): ErrorRule | undefined {
  if (isEngineFault(code)) return undefined;
  return task.on_error.find((rule) => rule.code === undefined || rule.code.some((p) => codeMatches(p, code)));
}
