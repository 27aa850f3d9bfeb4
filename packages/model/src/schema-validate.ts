import { isLosslessNumber, type Json, type LosslessNumber, toPlainJson } from "@baton/expr";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { stableStringify } from "./canonical.js";
import type { Schema } from "./definition.js";
import { describeKind } from "./json-kind.js";
import { joinPath } from "./problems.js";

/** One mismatch between a value and its schema; `path` like `input.customer.email` or `result.items[0]`. */
export interface ValueProblem {
  path: string;
  message: string;
}

// useDefaults stays off: ajv must never mutate the value (conformValue fills defaults).
const ajv = new Ajv2020({
  allErrors: true,
  strict: false,
  useDefaults: false,
  coerceTypes: false,
  validateFormats: false,
});

const byCanonical = new Map<string, ValidateFunction>();
const byIdentity = new WeakMap<Schema, { defs: Record<string, Schema> | undefined; fn: ValidateFunction }>();
const MAX_CACHED = 5000;

/** The schema as ajv sees it: the definition's `$defs` merged under the schema's own. */
export function rootSchema(schema: Schema, defs?: Record<string, Schema>): Schema {
  if (defs === undefined || Object.keys(defs).length === 0) return schema;
  const own = (schema.$defs as Record<string, Schema> | undefined) ?? {};
  return { ...schema, $defs: { ...defs, ...own } };
}

function compiled(schema: Schema, defs?: Record<string, Schema>): ValidateFunction {
  const hit = byIdentity.get(schema);
  if (hit !== undefined && hit.defs === defs) return hit.fn;
  const root = toPlainJson(rootSchema(schema, defs) as Json) as Schema;
  const key = stableStringify(root);
  let fn = byCanonical.get(key);
  if (fn === undefined) {
    fn = ajv.compile(root);
    if (byCanonical.size >= MAX_CACHED) byCanonical.clear();
    byCanonical.set(key, fn);
  }
  byIdentity.set(schema, { defs, fn });
  return fn;
}

/**
 * Problems of `value` against `schema` (LosslessNumbers are compared as the nearest float64).
 * A number outside the float64 range never conforms (docs/language.md "Numbers"): compared as
 * Infinity or 0 it would pass `integer, minimum: 1` and mean nothing.
 */
export function validateValue(
  schema: Schema,
  value: Json,
  defs?: Record<string, Schema>,
  rootPath = "",
): ValueProblem[] {
  const outOfRange = numbersOutOfRange(value, rootPath);
  if (outOfRange.length > 0) return outOfRange;
  const fn = compiled(schema, defs);
  const plain = toPlainJson(value);
  if (fn(plain)) return [];
  return dedupe(
    (fn.errors ?? []).filter((e) => !isUnionNoise(e, fn.errors ?? [])).map((e) => describeError(e, rootPath, plain)),
  );
}

/** At most this many out-of-range numbers are listed. */
const LISTED_OUT_OF_RANGE = 10;

/** Numbers of `value` that a float64 cannot hold even approximately: beyond ±1.8e308, or non-zero and below 5e-324. */
export function numbersOutOfRange(value: Json, rootPath = ""): ValueProblem[] {
  // Paths are built only when there is something to report: most values have no LosslessNumber at all.
  if (!someNumber(value, (n) => outOfRange(n.value))) return [];
  const problems: ValueProblem[] = [];
  const stack: Array<[Json, string]> = [[value, rootPath]];
  while (stack.length > 0 && problems.length < LISTED_OUT_OF_RANGE) {
    const [v, path] = stack.pop()!;
    if (isLosslessNumber(v)) {
      const text = (v as LosslessNumber).value;
      if (outOfRange(text))
        problems.push({
          path: path === "" ? "value" : path,
          message: `the number ${text.length > 40 ? `${text.slice(0, 40)}…` : text} is out of range: numbers must lie within ±1.7976931348623157e308 and, unless zero, be at least 5e-324 in magnitude`,
        });
    } else if (Array.isArray(v)) for (const [i, item] of v.entries()) stack.push([item, joinPath(path, i)]);
    else if (v !== null && typeof v === "object")
      for (const [k, item] of Object.entries(v)) stack.push([item, joinPath(path, k)]);
  }
  return problems;
}

function outOfRange(text: string): boolean {
  const n = Number(text);
  return !Number.isFinite(n) || (n === 0 && /[1-9]/.test(text.replace(/[eE].*$/, "")));
}

/** Whether some LosslessNumber in `value` satisfies `test` (walked without recursion). */
function someNumber(value: Json, test: (n: LosslessNumber) => boolean): boolean {
  const stack: Json[] = [value];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (isLosslessNumber(v)) {
      if (test(v as LosslessNumber)) return true;
    } else if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (v !== null && typeof v === "object") for (const item of Object.values(v)) stack.push(item);
  }
  return false;
}

// With allErrors, a failing oneOf/anyOf also reports every branch's own errors; keep only the
// union's summary so the message is about the value, not about each alternative.
function isUnionNoise(e: ErrorObject, all: ErrorObject[]): boolean {
  return all.some(
    (u) =>
      (u.keyword === "oneOf" || u.keyword === "anyOf") &&
      e !== u &&
      e.schemaPath.startsWith(u.schemaPath.replace(/\/(oneOf|anyOf)$/, `/${u.keyword}/`)),
  );
}

function dedupe(problems: ValueProblem[]): ValueProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const k = `${p.path}\0${p.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function pointerToPath(rootPath: string, pointer: string): string {
  let path = rootPath;
  if (pointer === "") return path;
  for (const raw of pointer.slice(1).split("/")) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    path = /^(0|[1-9]\d*)$/.test(seg) ? joinPath(path, Number(seg)) : joinPath(path, seg);
  }
  return path;
}

function valueAt(root: unknown, pointer: string): unknown {
  let v = root;
  if (pointer === "") return v;
  for (const raw of pointer.slice(1).split("/")) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}

function describeError(e: ErrorObject, rootPath: string, plain: unknown): ValueProblem {
  const path = pointerToPath(rootPath, e.instancePath);
  const p = e.params as Record<string, unknown>;
  const at = path === "" ? "value" : path;
  switch (e.keyword) {
    case "required":
      return {
        path: joinPath(path, String(p.missingProperty)),
        message: `required property "${String(p.missingProperty)}" is missing`,
      };
    case "type":
      return {
        path: at,
        message: `expected ${String(p.type).replace(/,/g, " or ")}, got ${describeKind(valueAt(plain, e.instancePath))}`,
      };
    case "enum":
      return {
        path: at,
        message: `expected one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      };
    case "oneOf":
      return { path: at, message: "must match exactly one of the oneOf schemas" };
    case "anyOf":
      return { path: at, message: "must match at least one of the anyOf schemas" };
    default:
      return { path: at, message: e.message ?? `fails ${e.keyword}` };
  }
}
