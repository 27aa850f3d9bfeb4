import type { Concurrency, RateLimit } from "../definition.js";
import { durationProblem, parseDuration } from "../duration.js";
import { describeKind } from "../json-kind.js";
import { joinPath } from "../problems.js";
import { expectObject, rejectUnknownFields, report, type Scope } from "./scope.js";

// Flow control fields (docs/flow-control.md "The fields"): `concurrency` on the document and on
// a task, `rate_limit` on a task. The key is a template; typing.ts checks it against the roots
// its place sees (a process key: `input` and `config` only).

/** The longest period a rate_limit may declare: one day (a longer one is a schedule, not a rate). */
export const MAX_RATE_PERIOD_MS = 86_400_000;

function decodeKey(sc: Scope, raw: unknown, path: string): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === "string" && raw.length > 0) return raw;
  report(
    sc,
    joinPath(path, "key"),
    `expected a non-empty key template ("$: input.customer" or literal text), got ${describeKind(raw)}`,
  );
  return undefined;
}

function decodeLimit(sc: Scope, raw: unknown, path: string): number | undefined {
  const at = joinPath(path, "limit");
  const max = sc.limits.maxFlowLimit;
  if (raw === undefined) report(sc, path, "a limit is required (a whole number of at least 1)");
  else if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 1 || raw > max)
    report(
      sc,
      at,
      `expected a whole number from 1 to ${max} (--limit-flow-max, docs/limits.md), got ${typeof raw === "number" ? raw : describeKind(raw)}`,
    );
  else return raw;
  return undefined;
}

export function decodeConcurrency(sc: Scope, raw: unknown, path: string): Concurrency | undefined {
  const obj = expectObject(sc, raw, path, "a concurrency object {key?, limit}");
  if (obj === undefined) return undefined;
  rejectUnknownFields(sc, obj, ["key", "limit"], path);
  const key = decodeKey(sc, obj.key, path);
  const limit = decodeLimit(sc, obj.limit, path);
  if (limit === undefined) return undefined;
  return key === undefined ? { limit } : { key, limit };
}

export function decodeRateLimit(sc: Scope, raw: unknown, path: string): RateLimit | undefined {
  const obj = expectObject(sc, raw, path, "a rate_limit object {key?, limit, per}");
  if (obj === undefined) return undefined;
  rejectUnknownFields(sc, obj, ["key", "limit", "per"], path);
  const key = decodeKey(sc, obj.key, path);
  const limit = decodeLimit(sc, obj.limit, path);
  let per: string | number | undefined;
  const at = joinPath(path, "per");
  if (obj.per === undefined) report(sc, path, 'a rate_limit needs per (a duration like "1s")');
  else {
    const problem = durationProblem(obj.per, false);
    if (problem !== undefined) report(sc, at, problem);
    else {
      const ms = parseDuration(obj.per as string | number);
      if (ms < 1 || ms > MAX_RATE_PERIOD_MS)
        report(
          sc,
          at,
          `expected a period from 1ms to 1d, got ${typeof obj.per === "string" ? `"${obj.per}"` : obj.per}`,
        );
      else per = typeof obj.per === "string" ? obj.per.trim() : (obj.per as number);
    }
  }
  if (limit === undefined || per === undefined) return undefined;
  return key === undefined ? { limit, per } : { key, limit, per };
}
