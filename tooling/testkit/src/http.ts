import { type Json, parseJson, stringifyJson } from "@baton/expr";

export interface HttpResult {
  status: number;
  headers: Headers;
  /** Parsed losslessly when JSON, else the text; undefined for an empty body. */
  body: any;
  text: string;
}

/** A plain HTTP call for tests: JSON in (lossless), JSON or text out. */
export async function request(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : stringifyJson(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  const res = await fetch(new URL(path, baseUrl), init);
  const text = await res.text();
  let parsed: Json | string | undefined;
  if (text.length === 0) parsed = undefined;
  else if ((res.headers.get("content-type") ?? "").includes("json")) parsed = parseJson(text);
  else parsed = text;
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** Bound to one server: `api.get("/api/definitions")`. */
export function client(baseUrl: string, headers: Record<string, string> = {}) {
  return {
    get: (path: string, h?: Record<string, string>) => request(baseUrl, "GET", path, undefined, { ...headers, ...h }),
    post: (path: string, body?: unknown, h?: Record<string, string>) => request(baseUrl, "POST", path, body ?? {}, { ...headers, ...h }),
    put: (path: string, body?: unknown, h?: Record<string, string>) => request(baseUrl, "PUT", path, body, { ...headers, ...h }),
    delete: (path: string, body?: unknown, h?: Record<string, string>) => request(baseUrl, "DELETE", path, body, { ...headers, ...h }),
  };
}
