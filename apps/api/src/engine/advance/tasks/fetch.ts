import {
  type Json,
  type Scope,
  evaluate,
  evaluateShape,
  isLosslessNumber,
  limitsIn,
  parseJson,
  renderValue,
  stringifyJson,
} from "@baton/expr";
import { type Schema, validateValue } from "@baton/model";
import { truncate } from "../../../format.js";
import type { CompiledFetch } from "../compiled-definition.js";
import { type FetchCall, TaskFailure } from "../task-failure.js";

// A fetch task's request and the reading of its response, evaluated from its scope with no I/O
// (docs/language.md#fetch). The call itself, where it may connect, and its timing are
// engine/fetch/run-fetch.ts, which the pump hands the advance as its environment's `fetch`.

const MESSAGE_BODY_CHARS = 200;

/** What `self` sees after an accepted response, and what the log shows of the call. */
export interface FetchResult {
  result: Json;
  status: number;
  headers: Record<string, string>;
  call?: FetchCall;
}

/** A response as the call received it. */
export interface FetchResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Which task visit a request belongs to: sent as headers, and its Idempotency-Key. */
export interface FetchVisit {
  instanceId: string;
  taskId: string;
  taskEpoch: number;
}

/** Rethrows `error`, a TaskFailure of this attempt carrying what was called. */
export function failedCall(error: unknown, call: FetchCall): never {
  if (error instanceof TaskFailure) error.call ??= call;
  throw error;
}

/** Scheme, host and path only: query strings may carry secrets. */
export function describe(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** The request's headers and body, evaluated in `scope`, with the engine's own headers. */
export function fetchHeadersAndBody(
  fetch: CompiledFetch,
  visit: FetchVisit,
  scope: Scope,
): { method: string; headers: Record<string, string>; body: string | undefined } {
  const method = fetch.action.method.toUpperCase();
  const headers: Record<string, string> = {};
  if (fetch.headers !== undefined) {
    const evaluated = evaluateShape(fetch.headers, scope);
    for (const [name, value] of Object.entries(asObject(evaluated, "headers"))) {
      if (value !== null) headers[name.toLowerCase()] = renderValue(value, limitsIn(scope).maxNumberDigits);
    }
  }
  let body: string | undefined;
  if (fetch.body !== undefined && method !== "GET" && method !== "HEAD") {
    const value = evaluateShape(fetch.body, scope);
    if (typeof value === "string") {
      body = value;
      headers["content-type"] ??= "text/plain; charset=utf-8";
    } else {
      body = stringifyJson(value);
      headers["content-type"] ??= "application/json";
    }
  }
  headers["accept"] ??= "application/json";
  headers["x-baton-instance-id"] = visit.instanceId;
  headers["x-baton-task-id"] = visit.taskId;
  headers["idempotency-key"] = `${visit.instanceId}:${visit.taskEpoch}`;
  return { method, headers, body };
}

/** The request URL, evaluated in `scope`: absolute, http or https, with its query. */
export function fetchUrl(fetch: CompiledFetch, scope: Scope): URL {
  const raw = evaluateShape(fetch.url, scope);
  if (typeof raw !== "string") throw new TaskFailure("pre.error", `url evaluated to ${kind(raw)}, expected a string`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TaskFailure("pre.error", `url "${truncate(raw, 200)}" is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TaskFailure("pre.error", `url scheme "${url.protocol.slice(0, -1)}" is not allowed; only http and https`);
  }
  if (fetch.query !== undefined) {
    const query = asObject(evaluateShape(fetch.query, scope), "query");
    for (const [name, value] of Object.entries(query)) {
      if (value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) {
        if (item !== null) url.searchParams.append(name, renderValue(item, limitsIn(scope).maxNumberDigits));
      }
    }
  }
  return url;
}

/** The call's timeout in ms: the literal, or `timeout.for` evaluated in `scope`. */
export function fetchTimeoutMs(fetch: CompiledFetch, scope: Scope): number {
  if ("ms" in fetch.timeout) return fetch.timeout.ms;
  const value = evaluate(fetch.timeout.expr, scope);
  const ms = typeof value === "number" ? value : isLosslessNumber(value) ? Number(String(value)) : Number.NaN;
  if (!Number.isFinite(ms) || ms < 0)
    throw new TaskFailure(
      "engine.expression",
      `timeout.for evaluated to ${kind(value)}, expected a number of milliseconds`,
    );
  return Math.round(ms);
}

function accepted(fetch: CompiledFetch, status: number): boolean {
  const { action } = fetch;
  if (action.accepted_status !== undefined && action.accepted_status.length > 0)
    return action.accepted_status.includes(status);
  const twoXx = Object.keys(action.responses ?? {}).filter((key) => key.startsWith("2"));
  if (twoXx.length > 0) return twoXx.some((key) => statusKeyMatches(key, status));
  return status >= 200 && status < 300;
}

function statusKeyMatches(key: string, status: number): boolean {
  const k = key.toLowerCase();
  if (/^\dxx$/.test(k)) return Math.floor(status / 100) === Number(k[0]);
  return Number(k) === status;
}

/** The result of an answered call: accepted, parsed and checked against result_schema, or a TaskFailure. */
export function fetchResult(
  fetch: CompiledFetch,
  response: FetchResponse,
  url: URL,
  defs?: Record<string, Schema>,
): FetchResult {
  const text = response.body.toString("utf8");
  if (!accepted(fetch, response.status)) {
    const start = text.trim() === "" ? "(empty body)" : truncate(text.trim(), MESSAGE_BODY_CHARS);
    throw new TaskFailure(
      `http.${response.status}`,
      `${describe(url)} answered ${response.status}: ${start}`,
      errorData(fetch, response.status, text),
    );
  }
  let result: Json = null;
  if (text.trim() !== "") {
    try {
      result = parseJson(text);
    } catch (error) {
      throw new TaskFailure(
        "output.parse",
        `response from ${describe(url)} is not JSON (${(error as Error).message}): ${truncate(text.trim(), 80)}`,
      );
    }
  }
  if (fetch.action.result_schema !== undefined) {
    const problems = validateValue(fetch.action.result_schema, result, defs, "result");
    if (problems.length > 0) {
      throw new TaskFailure(
        "output.invalid",
        `response from ${describe(url)} does not match result_schema: ${problems.map((p) => `${p.path || "result"}: ${p.message}`).join("; ")}`,
      );
    }
  }
  return { result, status: response.status, headers: response.headers };
}

// `responses` (docs/language.md#fetch) types error.data for declared non-2xx statuses: the
// parsed body when it is JSON.
function errorData(fetch: CompiledFetch, status: number, text: string): Json | undefined {
  const responses = fetch.action.responses;
  if (responses === undefined) return undefined;
  const declared = Object.keys(responses).some((key) => statusKeyMatches(key, status));
  if (!declared || text.trim() === "") return undefined;
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}

function asObject(value: Json, what: string): { [key: string]: Json } {
  if (value === null || typeof value !== "object" || Array.isArray(value) || isLosslessNumber(value)) {
    throw new TaskFailure("engine.expression", `${what} evaluated to ${kind(value)}, expected an object`);
  }
  return value as { [key: string]: Json };
}

function kind(value: Json): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (isLosslessNumber(value)) return "a number";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
