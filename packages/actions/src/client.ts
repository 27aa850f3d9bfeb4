// A typed fetch client over the registry: the CLI and the UI call the API only through it.

import { parseJson, stringifyJson } from "@baton/expr";
import type { ActionSpec } from "./action-spec.js";
import { ApiError, ConnectionError } from "./client-errors.js";
import { apiCodeOfStatus } from "./error-body.js";
import { findAction } from "./registry.js";
import type { ActionName, ActionResponse, RequestArgs } from "./types.js";

export interface ClientOptions {
  /** Base URL of the server, without `/api` (e.g. `http://127.0.0.1:8449`). */
  server: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  fetch?: typeof fetch;
  userAgent?: string;
}

export interface RawResponse<N extends ActionName> {
  status: number;
  /** The parsed JSON body (losslessly), the text of a non-JSON body, or undefined when empty. */
  data: ActionResponse<N> | undefined;
  headers: Headers;
}

export interface BatonClient {
  readonly server: string;
  /** Calls an action and resolves to its body; any non-2xx answer throws ApiError. */
  call<N extends ActionName>(name: N, ...req: RequestArgs<N>): Promise<ActionResponse<N>>;
  /**
   * Calls an action and resolves to status, body and headers for every status the action
   * declares as a response (e.g. 202/204 of pause, 503 of health); other non-2xx throw ApiError.
   */
  callRaw<N extends ActionName>(name: N, ...req: RequestArgs<N>): Promise<RawResponse<N>>;
}

interface LooseRequest {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

function queryValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(queryValue).join(",");
  if (value !== null && typeof value === "object") return stringifyJson(value); // LosslessNumber → its digits
  return String(value);
}

/** The URL of a call: path parameters substituted and encoded, query serialized. */
export function actionUrl(server: string, spec: ActionSpec, req: LooseRequest = {}): string {
  const base = server.replace(/\/+$/, "") + (spec.root ? "" : "/api");
  const path = spec.path.replace(/\{([^}]+)\}/g, (_, key: string) => {
    const value = req.params?.[key];
    if (value === undefined || value === null || value === "")
      throw new TypeError(`${spec.name}: missing path parameter "${key}"`);
    return encodeURIComponent(queryValue(value));
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(req.query ?? {})) {
    if (value === undefined || value === null) continue;
    search.append(key, queryValue(value));
  }
  const query = search.toString();
  return base + path + (query ? `?${query}` : "");
}

function parseBody(text: string, contentType: string | null): unknown {
  if (text === "") return undefined;
  if (contentType && !/[/+]json\b/i.test(contentType)) return text;
  try {
    return parseJson(text);
  } catch {
    return contentType ? Symbol.for("baton.invalidJson") : text;
  }
}

function errorFrom(status: number, statusText: string, data: unknown): ApiError {
  const body = data as { code?: unknown; error?: unknown; fields?: unknown } | undefined;
  const fromBody = body !== null && typeof body === "object" && typeof body.error === "string";
  const code = fromBody && typeof body.code === "string" ? (body.code as ApiError["code"]) : apiCodeOfStatus(status);
  const message = fromBody
    ? (body.error as string)
    : `the server answered ${status}${statusText ? ` ${statusText}` : ""}`;
  const fields =
    fromBody && Array.isArray(body.fields) ? (body.fields as { path: string; message: string }[]) : undefined;
  return new ApiError(status, code, message, fields, data);
}

export function createClient(options: ClientOptions): BatonClient {
  const server = options.server.replace(/\/+$/, "");
  const fetchImpl = options.fetch ?? globalThis.fetch;

  async function send(
    name: string,
    req: LooseRequest = {},
  ): Promise<{ status: number; statusText: string; data: unknown; headers: Headers; spec: ActionSpec }> {
    const spec = findAction(name);
    const url = actionUrl(server, spec, req);
    const contentTypes = Object.values(spec.responses).map((response) => response.contentType ?? "application/json");
    const headers: Record<string, string> = {
      ...req.headers,
      accept: [...new Set([...contentTypes, "application/json"])].join(", "),
    };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.userAgent) headers["user-agent"] = options.userAgent;
    let body: string | undefined;
    if (req.body !== undefined) {
      if (!spec.body) throw new TypeError(`${name}: this action takes no request body`);
      body = stringifyJson(req.body);
      headers["content-type"] = "application/json";
    }
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(url, { method: spec.method.toUpperCase(), headers, body, signal: req.signal });
      text = await response.text();
    } catch (error) {
      if (req.signal?.aborted) throw error;
      throw new ConnectionError(server, error);
    }
    const data = parseBody(text, response.headers.get("content-type"));
    if (typeof data === "symbol") {
      if (response.ok)
        throw new ApiError(
          response.status,
          "internal",
          `${name}: the server answered ${response.status} with a body that is not valid JSON`,
          undefined,
          text,
        );
      return { status: response.status, statusText: response.statusText, data: text, headers: response.headers, spec };
    }
    return { status: response.status, statusText: response.statusText, data, headers: response.headers, spec };
  }

  return {
    server,
    async call(name, ...args) {
      const result = await send(name, args[0] as LooseRequest | undefined);
      if (result.status < 200 || result.status > 299) throw errorFrom(result.status, result.statusText, result.data);
      return result.data as never;
    },
    async callRaw(name, ...args) {
      const result = await send(name, args[0] as LooseRequest | undefined);
      const ok = (result.status >= 200 && result.status <= 299) || result.status in result.spec.responses;
      if (!ok) throw errorFrom(result.status, result.statusText, result.data);
      return { status: result.status, data: result.data as never, headers: result.headers };
    },
  };
}
