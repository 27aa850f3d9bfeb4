import { type Json, parseJson, stringifyJson } from "@baton/expr";
import { checkResponse, isHeldToContract } from "./response-contract.js";

/** Header values left undefined are not sent (handy for "no Authorization" cases). */
type Headers_ = Record<string, string | undefined>;

export interface HttpResult {
  status: number;
  headers: Headers;
  /** Parsed losslessly when JSON, else the text; undefined for an empty body. */
  body: any;
  text: string;
}

/**
 * A plain HTTP call for tests: JSON in (lossless), JSON or text out. Every response of an API
 * server started by startServer is checked against the OpenAPI document
 * (response-contract.ts): an undocumented status or field throws. Mocks and proxies are not.
 */
export async function request(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Headers_ = {},
): Promise<HttpResult> {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) clean[k] = v;
  const init: RequestInit = { method, headers: clean };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : stringifyJson(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  const url = new URL(path, baseUrl);
  const res = await fetch(url, init);
  const text = await res.text();
  if (isHeldToContract(url))
    checkResponse(method, url.pathname, res.status, res.headers.get("content-type") ?? "", text);
  let parsed: Json | string | undefined;
  if (text.length === 0) parsed = undefined;
  else if ((res.headers.get("content-type") ?? "").includes("json")) parsed = parseJson(text);
  else parsed = text;
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** Bound to one server: `api.get("/api/definitions")`. */
export function client(baseUrl: string, headers: Headers_ = {}) {
  return {
    get: (path: string, h?: Headers_) => request(baseUrl, "GET", path, undefined, { ...headers, ...h }),
    post: (path: string, body?: unknown, h?: Headers_) =>
      request(baseUrl, "POST", path, body ?? {}, { ...headers, ...h }),
    put: (path: string, body?: unknown, h?: Headers_) => request(baseUrl, "PUT", path, body, { ...headers, ...h }),
    delete: (path: string, body?: unknown, h?: Headers_) =>
      request(baseUrl, "DELETE", path, body, { ...headers, ...h }),
  };
}
