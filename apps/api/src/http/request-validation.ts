import type { ActionSpec, JsonSchema } from "@baton/actions";
import { isLosslessNumber, type Json, setKey, toPlainJson } from "@baton/expr";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { type FieldProblem, invalid } from "../refusal.js";

// ajv-formats is CommonJS: under NodeNext the callable is on `.default`.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

// Two instances: query strings are coerced to the declared types (and defaults filled);
// bodies are JSON already and must match exactly.
const queryAjv = addFormats(new Ajv({ allErrors: true, coerceTypes: "array", useDefaults: true, strict: false }));
const bodyAjv = addFormats(new Ajv({ allErrors: true, strict: false }));

interface CompiledAction {
  params?: ValidateFunction;
  query?: ValidateFunction;
  body?: ValidateFunction;
}

const compiled = new Map<string, CompiledAction>();

/**
 * An action's validators, compiled on its first request: compiling the whole registry took a
 * fifth to a third of a server's start-up (docs/performance.md "Start-up"), and a process
 * serves few of its routes in its first second. request-validation.test.ts compiles every
 * entry, so a broken schema still fails in the tests, not on a request.
 */
function compile(action: ActionSpec): CompiledAction {
  let entry = compiled.get(action.name);
  if (!entry) {
    entry = {
      params: action.params ? queryAjv.compile(action.params) : undefined,
      query: action.query ? queryAjv.compile(action.query) : undefined,
      body: action.body ? bodyAjv.compile(action.body) : undefined,
    };
    compiled.set(action.name, entry);
  }
  return entry;
}

/** Compiles every action's validators at once (request-validation.test.ts). */
export function precompile(actions: readonly ActionSpec[]): void {
  for (const action of actions) compile(action);
}

/** `/tasks/0/id` → `tasks[0].id`, prefixed with the part of the request (body, query, path). */
export function jsonPointerToPath(prefix: string, pointer: string): string {
  let out = prefix;
  for (const raw of pointer.split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

function describe(error: ErrorObject, prefix: string): FieldProblem {
  const base = jsonPointerToPath(prefix, error.instancePath);
  const join = (name: string) =>
    jsonPointerToPath(prefix, `${error.instancePath}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`);
  const p = error.params as Record<string, any>;
  switch (error.keyword) {
    case "required":
      return { path: join(p.missingProperty), message: "is required" };
    case "additionalProperties":
      return { path: join(p.additionalProperty), message: `unknown field "${p.additionalProperty}"` };
    case "type":
      return { path: base || prefix, message: `must be of type ${p.type}` };
    case "enum":
      return {
        path: base || prefix,
        message: `must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      };
    default:
      return { path: base || prefix, message: error.message ?? `fails ${error.keyword}` };
  }
}

function problems(errors: ErrorObject[] | null | undefined, prefix: string): FieldProblem[] {
  const seen = new Set<string>();
  const out: FieldProblem[] = [];
  for (const e of errors ?? []) {
    // oneOf/anyOf report every branch; the summary line is enough and the rest is noise.
    if (e.keyword === "if") continue;
    const p = describe(e, prefix);
    const key = `${p.path}|${p.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(p);
    }
  }
  return out;
}

function fail(where: string, list: FieldProblem[]): never {
  const first = list[0];
  const summary = first ? `${first.path} ${first.message}` : "does not match the expected shape";
  const more = list.length > 1 ? ` (and ${list.length - 1} more problem${list.length > 2 ? "s" : ""})` : "";
  throw invalid(`invalid ${where}: ${summary}${more}`, list);
}

export function validateParams(action: ActionSpec, params: Record<string, string>): Record<string, string> {
  const v = compile(action).params;
  if (v && !v(params)) fail("path parameter", problems(v.errors, "path"));
  return params;
}

/** Coerces query strings to the declared types; unknown parameters are refused by the strict schemas. */
export function validateQuery(action: ActionSpec, raw: Record<string, string>): Record<string, any> {
  const query: Record<string, any> = { ...raw };
  const v = compile(action).query;
  if (v) {
    if (!v(query)) fail("query parameter", problems(v.errors, "query"));
  } else if (Object.keys(raw).length > 0) {
    fail(
      "query parameter",
      Object.keys(raw).map((k) => ({ path: `query.${k}`, message: `unknown parameter "${k}"` })),
    );
  }
  return query;
}

/** Validates a lossless body (big numbers checked as their nearest float). Returns the body unchanged. */
export function validateBody(action: ActionSpec, body: Json | undefined): Json | undefined {
  const v = compile(action).body;
  if (!v) return body;
  if (body === undefined) {
    if (action.bodyOptional) body = {};
    else fail("request body", [{ path: "body", message: "is required (a JSON request body)" }]);
  }
  if (!v(toPlainJson(body))) fail("request body", problems(v.errors, "body"));
  const exact: FieldProblem[] = [];
  const handled = exactNumbers(action.body!, body as Json, "body", exact);
  if (exact.length > 0) fail("request body", exact);
  return handled;
}

/**
 * ajv checks a body's numbers as their nearest float64, but the body is parsed losslessly, so a
 * field the registry declares as a number can arrive as a LosslessNumber that validated as
 * something else (`1e-400` passed `integer, minimum: 0` as 0). Where the schema declares a
 * number, the handler gets the float64 that was validated, and a value that float64 does not
 * hold exactly is refused. Free-form positions (an instance's input, a definition) stay exact.
 */
function exactNumbers(schema: JsonSchema, value: Json, path: string, out: FieldProblem[]): Json {
  if (isLosslessNumber(value)) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.includes("integer") && !types.includes("number")) return value;
    const n = Number(value.value);
    if (
      types.includes("integer")
        ? !Number.isSafeInteger(n) || BigInt(n) !== exactInteger(value.value)
        : !Number.isFinite(n)
    )
      out.push({
        path,
        message: `must be ${types.includes("integer") ? "an integer" : "a number"} that a float64 holds exactly (got ${shortText(value.value)})`,
      });
    return n;
  }
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined;
    return items ? value.map((item, i) => exactNumbers(items, item, `${path}[${i}]`, out)) : value;
  }
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  if (!props) return value;
  const copy: { [key: string]: Json } = {};
  for (const [key, item] of Object.entries(value))
    setKey(copy, key, Object.hasOwn(props, key) ? exactNumbers(props[key]!, item, `${path}.${key}`, out) : item);
  return copy;
}

/** The exact integer a decimal text denotes, or undefined when it has a fractional part. */
function exactInteger(text: string): bigint | undefined {
  const m = /^(-?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return undefined;
  const exp = Number(m[4] ?? 0);
  const digits = (m[2] ?? "") + (m[3] ?? "");
  const point = (m[2] ?? "").length + exp;
  if (Math.abs(exp) > 400) return undefined; // a number a float64 cannot hold as an integer anyway
  const whole =
    point >= digits.length ? digits + "0".repeat(point - digits.length) : digits.slice(0, Math.max(point, 0));
  const fraction = point >= digits.length ? "" : digits.slice(Math.max(point, 0));
  if (/[1-9]/.test(fraction)) return undefined;
  const n = BigInt(whole || "0");
  return m[1] === "-" ? -n : n;
}

function shortText(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

export type { JsonSchema };
