import type { ErrorRule, RetryPolicy } from "../definition.js";
import { durationProblem, parseDuration } from "../duration.js";
import { codeMatches } from "../error-codes.js";
import { describeKind, isNonNegativeInteger } from "../json-kind.js";
import { CODE_PATTERN } from "../names.js";
import { joinPath } from "../problems.js";
import { DEFAULT_RETRY_DELAY, DEFAULT_RETRY_FACTOR, defaultMaxDelay } from "../retry-delay.js";
import { checkOneOutcome, decodeAuthoredError, decodeGoto, type TaskIndex } from "./decode-routing.js";
import { expectBoolean, expectObject, patternChecks, rejectUnknownFields, report, type Scope } from "./scope.js";

const RULE_FIELDS = ["code", "retry", "retries", "goto", "raise", "panic", "not_reached"];

export function decodeOnError(sc: Scope, raw: unknown, path: string, tasks: TaskIndex): ErrorRule[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    report(
      sc,
      path,
      `expected an array of rules {code?, retry?, goto | raise | panic, not_reached?}, got ${describeKind(raw)}`,
    );
    return [];
  }
  const out: ErrorRule[] = [];
  raw.forEach((item, i) => {
    const at = joinPath(path, i);
    const obj = expectObject(sc, item, at, "a rule {code?, retry?, goto | raise | panic, not_reached?}");
    if (obj === undefined) return;
    rejectUnknownFields(sc, obj, RULE_FIELDS, at);
    checkOneOutcome(sc, obj, at, true);
    const rule: ErrorRule = {};
    if (obj.code === undefined) {
      if (i !== raw.length - 1)
        report(
          sc,
          at,
          "a rule without code catches everything and must be the last; the rules after it could never match",
        );
    } else rule.code = decodePatterns(sc, obj.code, joinPath(at, "code"));
    if (obj.retry !== undefined && obj.retries !== undefined) report(sc, at, "give either retry or retries, not both");
    else if (obj.retry !== undefined) rule.retry = decodeRetry(sc, obj.retry, joinPath(at, "retry"));
    else if (obj.retries !== undefined) rule.retry = decodeRetry(sc, obj.retries, joinPath(at, "retries"));
    if (obj.goto !== undefined)
      rule.goto = decodeGoto(sc, obj.goto, joinPath(at, "goto"), tasks, false) as ErrorRule["goto"];
    if (obj.raise !== undefined) rule.raise = decodeAuthoredError(sc, obj.raise, joinPath(at, "raise"));
    if (obj.panic !== undefined) rule.panic = decodeAuthoredError(sc, obj.panic, joinPath(at, "panic"));
    if (obj.not_reached !== undefined) {
      const nr = expectBoolean(sc, obj.not_reached, joinPath(at, "not_reached"));
      // false is the default; dropping it keeps equivalent definitions hashing alike.
      if (nr === true) rule.not_reached = true;
    }
    out.push(rule);
  });
  const patterns = out.reduce((n, rule) => n + (rule.code?.length ?? 0), 0);
  if (patterns > sc.limits.maxPatternsPerTask) {
    // Shadowing compares every pattern with every earlier one: bounded by this count.
    report(
      sc,
      path,
      `the rules list ${patterns} code patterns, more than the limit of ${sc.limits.maxPatternsPerTask} per task (docs/limits.md); a wildcard such as "http.5%" covers many codes`,
    );
    return out;
  }
  reportShadowedPatterns(sc, out, path);
  return out;
}

/**
 * A pattern that an earlier rule already catches can never match: the first matching rule wins.
 * Matching the later pattern's text against the earlier pattern is exact for `%` patterns too:
 * each `%` of the later one can only be absorbed by a `%` of the earlier one.
 */
function reportShadowedPatterns(sc: Scope, rules: ErrorRule[], path: string): void {
  let earlierPatterns = 0;
  rules.forEach((rule, i) => {
    rule.code?.forEach((pattern, k) => {
      if (!patternChecks(sc, earlierPatterns, path)) return;
      const j = rules.slice(0, i).findIndex((earlier) => earlier.code?.some((q) => codeMatches(q, pattern)));
      if (j !== -1)
        report(
          sc,
          joinPath(joinPath(joinPath(path, i), "code"), k),
          `"${pattern}" can never match here: on_error[${j}] already catches every code it names`,
        );
    });
    earlierPatterns += rule.code?.length ?? 0;
  });
}

function decodePatterns(sc: Scope, raw: unknown, path: string): string[] | undefined {
  const list = typeof raw === "string" ? [raw] : raw;
  if (!Array.isArray(list) || list.length === 0) {
    report(
      sc,
      path,
      `expected a code pattern or a non-empty array of them (e.g. ["http.5%", "pre.%"]), got ${describeKind(raw)}`,
    );
    return undefined;
  }
  const out: string[] = [];
  list.forEach((p, i) => {
    const at = typeof raw === "string" ? path : joinPath(path, i);
    if (typeof p !== "string") report(sc, at, `expected a code pattern, got ${describeKind(p)}`);
    else if (p.length > sc.limits.maxPatternLength)
      report(
        sc,
        at,
        `the code pattern is ${p.length} characters long, more than the limit of ${sc.limits.maxPatternLength} (docs/limits.md)`,
      );
    else if (!CODE_PATTERN.test(p))
      report(sc, at, `"${p}" is not a code pattern (lower-case codes, dots, digits, _ and % as the only wildcard)`);
    else if (p.startsWith("engine.")) report(sc, at, `"${p}" can never match: engine.* codes are never caught`);
    else out.push(p);
  });
  return out;
}

/** `N` → `{retries: N}`; the object form is completed with the defaults so the engine never guesses. */
export function decodeRetry(sc: Scope, raw: unknown, path: string): RetryPolicy | undefined {
  if (typeof raw === "number") {
    if (isNonNegativeInteger(raw))
      return {
        retries: raw,
        delay: DEFAULT_RETRY_DELAY,
        factor: DEFAULT_RETRY_FACTOR,
        max_delay: defaultMaxDelay(DEFAULT_RETRY_DELAY),
      };
    report(sc, path, `expected a non-negative integer number of retries, got ${raw}`);
    return undefined;
  }
  const obj = expectObject(sc, raw, path, "a number of retries or {retries, delay?, factor?, max_delay?}");
  if (obj === undefined) return undefined;
  rejectUnknownFields(sc, obj, ["retries", "delay", "factor", "max_delay"], path);
  let ok = true;
  if (!isNonNegativeInteger(obj.retries)) {
    report(
      sc,
      joinPath(path, "retries"),
      `expected a non-negative integer, got ${typeof obj.retries === "number" ? obj.retries : describeKind(obj.retries)}`,
    );
    ok = false;
  }
  const delay = obj.delay === undefined ? DEFAULT_RETRY_DELAY : staticDuration(sc, obj.delay, joinPath(path, "delay"));
  const maxDelay =
    obj.max_delay === undefined ? undefined : staticDuration(sc, obj.max_delay, joinPath(path, "max_delay"));
  let factor = DEFAULT_RETRY_FACTOR;
  if (obj.factor !== undefined) {
    if (typeof obj.factor !== "number" || !Number.isFinite(obj.factor) || obj.factor < 1) {
      report(
        sc,
        joinPath(path, "factor"),
        `expected a number ≥ 1, got ${typeof obj.factor === "number" ? obj.factor : describeKind(obj.factor)}`,
      );
      ok = false;
    } else factor = obj.factor;
  }
  if (!ok || delay === undefined || (obj.max_delay !== undefined && maxDelay === undefined)) return undefined;
  return { retries: obj.retries as number, delay, factor, max_delay: maxDelay ?? defaultMaxDelay(delay) };
}

function staticDuration(sc: Scope, raw: unknown, path: string): string | undefined {
  const problem = durationProblem(raw, false);
  if (problem !== undefined) {
    report(sc, path, problem);
    return undefined;
  }
  if (typeof raw === "number") return `${parseDuration(raw)}ms`;
  return (raw as string).trim();
}
