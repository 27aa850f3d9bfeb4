// Over 300 lines on purpose: the request path of every route in one place and in its order (callers, authenticate,
// authorize, validate, handler; docs/architecture.md "Request path"), with the error mapping all of them share.
import { type ActionName, type ActionSpec, buildOpenApi, docsHtml, registry } from "@baton/actions";
import { type Json, stringifyJson } from "@baton/expr";
import type { IncomingMessage } from "node:http";
import type { HttpBindings } from "@hono/node-server";
import { Hono, type Context } from "hono";
import { authorize, type Authenticator } from "../auth/index.js";
import { enforceScope, refuseScoped, SCOPE_REFUSALS } from "../auth/scope.js";
import type { Services } from "../services.js";
import type { Principal } from "../auth/principal.js";
import type { ActionHandler, ActionHandlers, ActionReply, ActionRequest } from "./action-handler.js";
import { ApiError, errorBody, toApiError } from "./api-error.js";
import { unsupported } from "../refusal.js";
import { validateBody, validateParams, validateQuery } from "./request-validation.js";
import { serveDocsAsset } from "./docs-assets.js";
import { type Admission, admission, LARGE_BODY_CHARS } from "./admission.js";
import { parseBodyJson } from "./body-json.js";
import { createCallerGate } from "./caller-limits.js";
import { databaseErrorCode, isDatabaseUnavailable } from "../storage/db-unavailable.js";
import { errorText, errorStack } from "../loggable-error.js";
import type { UnparsedBody } from "../definitions/decode-request.js";
import { DEFINITION_ACTIONS } from "../definitions/request-job.js";
import { tracing } from "../tracing/index.js";
import type { Span } from "../tracing/sdk.js";

const PUBLIC_PRINCIPAL: Principal = { actor: null, perms: [], scopes: null };

/** The app runs under @hono/node-server (server.ts): node's own request is at hand. */
type Env = { Bindings: HttpBindings };

/** `/instances/{id}` → `/instances/:id` */
/** Every address of an entry: `/api<path>`, and the bare path too for a root entry (docs/api.md "OpenAPI"). */
function honoPaths(action: ActionSpec): string[] {
  const path = action.path.replace(/\{([^}]+)\}/g, ":$1");
  return action.root ? [path, `/api${path}`] : [`/api${path}`];
}

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(stringifyJson(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

function errorResponse(error: ApiError): Response {
  return jsonResponse(error.status, errorBody(error), error.headers);
}

/** The limit of a request body and the flag that sets it (docs/limits.md "Requests"). */
interface BodyLimit {
  bytes: number;
  flag: "--max-body" | "--max-definition-body" | "--limit-hook-body-bytes";
}

/** The body as text ("" when none was sent), after the size and content-type checks. */
async function readBodyText(c: Context<Env>, limit: BodyLimit): Promise<string> {
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > limit.bytes) throw tooLarge(limit);
  const buffer = await readAtMost(c.env.incoming, limit);
  if (buffer.byteLength === 0) return "";
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
    throw new ApiError(
      "invalid",
      `the request body must be JSON: send "content-type: application/json" (got ${type ? `"${type}"` : "no content-type"})`,
    );
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(buffer);
}

/** The parsed body (parseBodyJson); a large one only once `gate` lets it in (`turn.leave` is then set: call it when done). */
async function readBody(
  c: Context<Env>,
  limit: BodyLimit,
  maxDepth: number,
  gate: Admission,
  turn: { leave?: () => void },
): Promise<Json | undefined> {
  const text = await readBodyText(c, limit);
  if (text === "") return undefined;
  if (text.length >= LARGE_BODY_CHARS) turn.leave = await gate.enter();
  return parseBodyJson(text, maxDepth);
}

/**
 * The body, read chunk by chunk and abandoned as soon as it passes its limit: a chunked
 * request has no content-length, so reading it whole first would let one request make the
 * server buffer any amount of memory before the 413. Read from node's request itself, not
 * through a web Request: building that Request and its ReadableStream cost more CPU than the
 * rest of a start (docs/performance.md "The HTTP layer"). What is left unread when this gives
 * up, @hono/node-server drains or closes after the answer.
 */
function readAtMost(incoming: IncomingMessage, limit: BodyLimit): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (settle: () => void) => {
      incoming.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      settle();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit.bytes) {
        incoming.pause();
        finish(() => reject(tooLarge(limit)));
      } else chunks.push(chunk);
    };
    const onEnd = () => finish(() => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    const onError = (error: Error) => finish(() => reject(error));
    // Closed before the end: the client went away mid-body; nobody is left to answer.
    const onClose = () =>
      finish(() => reject(new Error("the client closed the connection before the request body ended")));
    if (incoming.readableEnded) return resolve(Buffer.alloc(0));
    incoming.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

/** Retry-After: the longest pause before the server reconnects (--db-reconnect-max), in whole seconds. */
function databaseUnavailable(reconnectMaxMs: number): ApiError {
  return new ApiError(
    "unavailable",
    "the database is unreachable; retry after Retry-After seconds (if it went away while this request ran, the request may have taken effect)",
    { headers: { "retry-after": String(Math.max(1, Math.ceil(reconnectMaxMs / 1000))) } },
  );
}

function tooLarge(limit: BodyLimit): ApiError {
  return new ApiError(
    "invalid",
    `the request body is larger than the limit of ${limit.bytes} bytes (${limit.flag}, docs/limits.md)`,
    { status: 413 },
  );
}

/** The query of a request URL, parsed as `new URL(url).searchParams` would, without parsing the rest. */
function searchParams(url: string): URLSearchParams {
  const at = url.indexOf("?");
  if (at < 0) return new URLSearchParams();
  const hash = url.indexOf("#", at);
  return new URLSearchParams(hash < 0 ? url.slice(at + 1) : url.slice(at + 1, hash));
}

function toResponse(reply: ActionReply): Response {
  const status = reply.status ?? 200;
  if (status === 204) return new Response(null, { status, headers: reply.headers });
  if (reply.contentType)
    return new Response(reply.body as string, {
      status,
      headers: { "content-type": reply.contentType, ...reply.headers },
    });
  return jsonResponse(status, reply.body ?? null, reply.headers);
}

/**
 * The HTTP surface, generated from the action registry: one route per entry, each running
 * authenticate → authorize → validate path/query/body → handler. An entry without a
 * handler answers 501 `unsupported` (never a fake success).
 */
export function createApp(services: Services, handlers: ActionHandlers, authenticator: Authenticator): Hono<Env> {
  const app = new Hono<Env>();
  const openapi = buildOpenApi(registry);

  app.onError((error, c) => {
    const refused = toApiError(error);
    if (refused) return errorResponse(refused);
    // 22021 (a NUL byte in text) / 22P05 (jsonb refusing the escape \u0000): a request string
    // the database cannot store, refused here rather than answered 500 (docs/limits.md#poison-instances).
    const code = databaseErrorCode(error);
    if (code === "22021" || code === "22P05")
      return errorResponse(
        new ApiError(
          "invalid",
          "a string in this request contains the character U+0000 (NUL), which cannot be stored; remove it",
        ),
      );
    if (isDatabaseUnavailable(error)) {
      // Only the code: a driver error's message and parameters may carry request values.
      services.log.warn("database unavailable", {
        ...logFields(c),
        method: c.req.method,
        path: c.req.path,
        code: databaseErrorCode(error),
      });
      return errorResponse(databaseUnavailable(services.config.dbTimeouts.reconnectMaxMs));
    }
    services.log.error("request failed", {
      ...logFields(c),
      method: c.req.method,
      path: c.req.path,
      error: errorText(error),
      stack: errorStack(error),
    });
    return errorResponse(
      new ApiError("internal", "the server failed to handle this request; the error is in the server log"),
    );
  });

  // Every answer is only ever what its Content-Type says (docs/security.md "Floods and idle connections" names the rest of the edge).
  app.use(async (c, next) => {
    await next();
    c.res.headers.set("x-content-type-options", "nosniff");
  });

  // Per-request metrics by action name (never the raw path: ids would explode the series).
  const actionOf = new WeakMap<Request, string>();
  const routeOf = new WeakMap<Request, string>();
  const tracer = tracing();
  /** Each request's server span while the server traces: the parent of what it starts, its log lines' ids. */
  const spanOf = new WeakMap<Request, Span>();
  const logFields = (c: Context<Env>) => {
    const span = tracer && spanOf.get(c.req.raw);
    return span ? tracer!.logFields(span) : {};
  };
  if (tracer) {
    // The server span of every request (docs/tracing.md "Spans"), a child of the caller's
    // `traceparent`; a start made by the request hangs from it (ActionRequest.traceParent).
    app.use(async (c, next) => {
      const span = tracer.startSpan(
        c.req.method,
        "server",
        { "http.request.method": c.req.method, "url.path": c.req.path, "url.scheme": "http" },
        tracer.fromHeaders((name) => c.req.header(name)),
      );
      spanOf.set(c.req.raw, span);
      try {
        await next();
      } finally {
        const route = routeOf.get(c.req.raw);
        if (route !== undefined) {
          span.updateName(`${c.req.method} ${route}`);
          span.setAttribute("http.route", route);
          span.setAttribute("baton.action", actionOf.get(c.req.raw) ?? "unmatched");
        }
        span.setAttribute("http.response.status_code", c.res.status);
        if (c.res.status >= 500) tracer.fail(span, String(c.res.status));
        span.end();
      }
    });
  }
  if (services.metrics) {
    const metrics = services.metrics;
    app.use(async (c, next) => {
      const began = performance.now();
      await next();
      const span = tracer && spanOf.get(c.req.raw);
      metrics.http(
        actionOf.get(c.req.raw) ?? "unmatched",
        c.res.status,
        (performance.now() - began) / 1000,
        span ? tracer!.logFields(span) : undefined,
      );
    });
  }

  const bodyLimit: BodyLimit = { bytes: services.config.maxBodyBytes, flag: "--max-body" };
  const definitionBodyLimit: BodyLimit = {
    bytes: services.config.maxDefinitionBodyBytes,
    flag: "--max-definition-body",
  };
  const hookBodyLimit: BodyLimit = { bytes: services.config.limits.hookBodyBytes, flag: "--limit-hook-body-bytes" };
  const largeBodies = admission(1);
  const callers = createCallerGate({
    perAddress: services.config.limits.requestsPerAddress,
    perCredential: services.config.limits.requestsPerCredential,
  });
  for (const action of registry) {
    // The registry validated the request against this action's own schemas just below.
    const handler = handlers[action.name as ActionName] as ActionHandler<ActionName> | undefined;
    // A definition endpoint's body is handed to its handler unparsed: parsing and validating it
    // runs on a checker thread (definitions/request-job.ts, docs/limits.md "Requests").
    // A hook's body too: its signature covers the exact bytes (docs/events.md "Receiving").
    const hookReceive = action.name === "receiveHook";
    const unparsed = DEFINITION_ACTIONS.has(action.name) || hookReceive;
    const unparsedLimit = hookReceive ? hookBodyLimit : definitionBodyLimit;
    const route = `/api${action.path}`;
    app.on(action.method.toUpperCase(), honoPaths(action), async (c) => {
      actionOf.set(c.req.raw, action.name);
      if (tracer) routeOf.set(c.req.raw, action.root ? action.path : route);
      // The probes are never counted: a flood must not make a replica look dead. A hook is
      // public (its signature is its credential) but counted per address like any caller.
      const counted = action.permissions !== "public";
      const leaveHookAddress = hookReceive ? callers.enterAddress(c) : undefined;
      // Before authentication: a flood of bogus credentials costs a map lookup, not a token lookup.
      const leaveAddress = counted ? callers.enterAddress(c) : undefined;
      let leaveCredential: (() => void) | undefined;
      try {
        const principal = counted ? await authenticator.authenticate(c.req.header("authorization")) : PUBLIC_PRINCIPAL;
        if (counted) {
          authorize(principal, action);
          refuseScoped(principal, action);
        }
        if (counted && principal.actor !== null) leaveCredential = callers.enterCredential(principal.actor);
        return await handleAction(c, principal);
      } catch (error) {
        if (error instanceof Error && SCOPE_REFUSALS.has(error)) services.metrics?.scopeRefused(action.scope.by);
        throw error;
      } finally {
        leaveCredential?.();
        leaveAddress?.();
        leaveHookAddress?.();
      }
    });
    const handleAction = async (c: Context<Env>, principal: Principal): Promise<Response> => {
      const params = validateParams(action, c.req.param() as Record<string, string>);
      const rawQuery: Record<string, string> = {};
      for (const [key, value] of searchParams(c.req.url)) {
        if (key in rawQuery)
          throw new ApiError(
            "invalid",
            `query parameter "${key}" is given more than once; give it once (use commas for several values where the parameter allows it)`,
          );
        rawQuery[key] = value;
      }
      const query = validateQuery(action, rawQuery);
      let raw: Json | undefined;
      let body: unknown;
      const turn: { leave?: () => void } = {};
      try {
        if (unparsed) body = { unparsed: await readBodyText(c, unparsedLimit) } satisfies UnparsedBody;
        else {
          raw =
            action.body || ["post", "put", "delete"].includes(action.method)
              ? await readBody(c, bodyLimit, services.config.limits.bodyDepth, largeBodies, turn)
              : undefined;
          body = action.body ? validateBody(action, raw) : raw;
        }
        if (
          !unparsed &&
          !action.body &&
          raw !== undefined &&
          !(raw !== null && typeof raw === "object" && Object.keys(raw).length === 0)
        ) {
          throw new ApiError("invalid", `${action.method.toUpperCase()} ${action.path} takes no request body`);
        }
        // After validation (a malformed request gets the same 400 in scope or out of it), before the handler.
        await enforceScope(services.db, principal, action, params as Record<string, unknown>, body);
        if (!handler)
          throw unsupported(
            `${action.method.toUpperCase()} ${action.path} (${action.name}) is not implemented by this server yet`,
          );
        // params, query and body were validated against this action's schemas above, which the
        // registry's types for it mirror (packages/actions registry.test.ts keeps them in step).
        const web = c.req.raw;
        const request = {
          action,
          params,
          query,
          body,
          principal,
          headers: web.headers,
          // Made on first use: an AbortController per request is a cost only a long-poll needs.
          get abort() {
            return web.signal;
          },
          ...(tracer ? { traceParent: tracer.traceparentOf(spanOf.get(web)!) } : {}),
        } as ActionRequest<ActionName>;
        return toResponse(await handler(request, services));
      } finally {
        turn.leave?.();
      }
    };
  }

  app.get("/public/openapi.json", () => jsonResponse(200, openapi));
  const apiDocs = () =>
    new Response(docsHtml({ specUrl: "/public/openapi.json", assetBase: "/public/docs/assets/", title: "Baton API" }), {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  // With and without the trailing slash: both are how people type a directory-like URL.
  app.get("/public/docs", apiDocs);
  app.get("/public/docs/", apiDocs);
  app.get("/public/docs/assets/:file", (c) => serveDocsAsset(c.req.param("file")));

  app.notFound((c) =>
    errorResponse(
      new ApiError(
        "not_found",
        `no endpoint ${c.req.method} ${c.req.path}; the API is described at /public/openapi.json`,
      ),
    ),
  );
  return app;
}
