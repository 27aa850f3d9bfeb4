import type { FetchAction } from "../definition.js";
import { isLosslessNumber } from "@baton/expr";
import { describeKind } from "../json-kind.js";
import { joinPath } from "../problems.js";
import { literalPrefix, literalText } from "../template-text.js";
import { decodeTimeout } from "./decode-timing.js";
import {
  decodeSchema,
  decodeSchemaOrNull,
  expectObject,
  expectString,
  rejectUnknownFields,
  report,
  type Scope,
} from "./scope.js";

export const HTTP_METHODS: readonly string[] = ["get", "post", "put", "patch", "delete", "head", "options"];
const FETCH_FIELDS = [
  "type",
  "url",
  "method",
  "headers",
  "query",
  "body",
  "result_schema",
  "responses",
  "accepted_status",
  "timeout",
];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const RESPONSE_KEY = /^[1-5](\d\d|xx)$/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/** A task-level `timeout` is moved into the action afterwards by the task decoder (decode-task.ts). */
export function decodeFetch(sc: Scope, raw: Record<string, unknown>, path: string): FetchAction {
  rejectUnknownFields(sc, raw, FETCH_FIELDS, path);
  const out: FetchAction = { type: "fetch", url: "", method: "post" };
  if (raw.url === undefined) report(sc, path, "fetch needs a url");
  else {
    const url = expectString(sc, raw.url, joinPath(path, "url"), "a URL template");
    if (url !== undefined) {
      out.url = url;
      checkUrl(sc, url, joinPath(path, "url"));
    }
  }
  if (raw.method !== undefined) {
    const m = expectString(sc, raw.method, joinPath(path, "method"), "an HTTP method");
    if (m !== undefined) {
      if (HTTP_METHODS.includes(m.toLowerCase())) out.method = m.toLowerCase();
      else
        report(
          sc,
          joinPath(path, "method"),
          `unknown HTTP method "${m}"; expected one of ${HTTP_METHODS.join(", ")} (any case)`,
        );
    }
  }
  if (raw.headers !== undefined) out.headers = decodeHeaders(sc, raw.headers, joinPath(path, "headers"));
  if (raw.query !== undefined) out.query = decodeQuery(sc, raw.query, joinPath(path, "query"));
  if (raw.body !== undefined) {
    out.body = raw.body as FetchAction["body"];
    if (out.method === "get" || out.method === "head")
      report(
        sc,
        joinPath(path, "body"),
        `a body is never sent with ${out.method.toUpperCase()}; remove it or use another method`,
      );
  }
  if (raw.result_schema !== undefined && raw.responses !== undefined)
    report(sc, path, "give either result_schema or responses, not both");
  if (raw.result_schema !== undefined)
    out.result_schema = decodeSchema(sc, raw.result_schema, joinPath(path, "result_schema"));
  if (raw.responses !== undefined) out.responses = decodeResponses(sc, raw.responses, joinPath(path, "responses"));
  if (raw.accepted_status !== undefined)
    out.accepted_status = decodeAcceptedStatus(sc, raw.accepted_status, joinPath(path, "accepted_status"));
  if (raw.timeout !== undefined) out.timeout = decodeTimeout(sc, raw.timeout, joinPath(path, "timeout"), false);
  return out;
}

function checkUrl(sc: Scope, url: string, path: string): void {
  const literal = literalText(url);
  if (literal !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(literal);
    } catch {
      report(sc, path, `"${literal}" is not an absolute URL; expected http://… or https://…`);
      return;
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
      report(sc, path, `only http and https URLs are allowed, got "${parsed.protocol.slice(0, -1)}"`);
    return;
  }
  const scheme = SCHEME.exec(literalPrefix(url));
  if (scheme !== null && !["http", "https"].includes(scheme[1].toLowerCase()))
    report(sc, path, `only http and https URLs are allowed, got "${scheme[1]}"`);
}

function decodeHeaders(sc: Scope, raw: unknown, path: string): FetchAction["headers"] {
  const obj = expectObject(sc, raw, path, "an object of header name → template");
  if (obj === undefined) return undefined;
  const seen = new Map<string, string>();
  for (const [name, value] of Object.entries(obj)) {
    const at = joinPath(path, name);
    if (!HEADER_NAME.test(name)) report(sc, at, `"${name}" is not a valid HTTP header name`);
    const lower = name.toLowerCase();
    if (lower.startsWith("x-baton-"))
      report(sc, at, `header "${name}" is reserved: the engine sets X-Baton-* headers itself`);
    const prev = seen.get(lower);
    if (prev !== undefined) report(sc, at, `header "${name}" is given twice (also as "${prev}")`);
    seen.set(lower, name);
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean")
      report(sc, at, `expected a header value (a string template, number or boolean), got ${describeKind(value)}`);
  }
  return obj as FetchAction["headers"];
}

function isScalar(v: unknown): boolean {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" || isLosslessNumber(v);
}

function decodeQuery(sc: Scope, raw: unknown, path: string): FetchAction["query"] {
  const obj = expectObject(sc, raw, path, "an object of parameter name → value");
  if (obj === undefined) return undefined;
  for (const [name, value] of Object.entries(obj)) {
    const at = joinPath(path, name);
    if (value === null || isScalar(value)) continue;
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        if (!isScalar(v)) report(sc, joinPath(at, i), `expected a string, number or boolean, got ${describeKind(v)}`);
      });
      continue;
    }
    report(
      sc,
      at,
      `expected a string, number, boolean, null (omits the parameter) or an array (repeats it), got ${describeKind(value)}`,
    );
  }
  return obj as FetchAction["query"];
}

function decodeResponses(sc: Scope, raw: unknown, path: string): FetchAction["responses"] {
  const obj = expectObject(sc, raw, path, 'an object of status → schema or null (e.g. {"200": {…}, "404": null})');
  if (obj === undefined) return undefined;
  const out: NonNullable<FetchAction["responses"]> = {};
  for (const [status, schema] of Object.entries(obj)) {
    const at = joinPath(path, status);
    if (!RESPONSE_KEY.test(status))
      report(sc, at, `"${status}" is not a status; expected a code like "200" or a class like "5xx"`);
    const s = decodeSchemaOrNull(sc, schema, at);
    if (s !== undefined) out[status] = s;
  }
  if (Object.keys(obj).length === 0) report(sc, path, "responses must declare at least one status");
  return out;
}

function decodeAcceptedStatus(sc: Scope, raw: unknown, path: string): number[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    report(sc, path, `expected a non-empty array of HTTP status codes, got ${describeKind(raw)}`);
    return undefined;
  }
  const out: number[] = [];
  raw.forEach((v, i) => {
    if (typeof v !== "number" || !Number.isInteger(v) || v < 100 || v > 599)
      report(
        sc,
        joinPath(path, i),
        `expected an integer status between 100 and 599, got ${typeof v === "number" ? v : describeKind(v)}`,
      );
    else if (out.includes(v)) report(sc, joinPath(path, i), `status ${v} is listed twice`);
    else out.push(v);
  });
  return out.sort((a, b) => a - b);
}
