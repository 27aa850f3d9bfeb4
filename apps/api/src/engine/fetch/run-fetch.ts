import type { Schema } from "@baton/model";
import type { CompiledFetch } from "../advance/compiled-definition.js";
import { TaskFailure } from "../advance/task-failure.js";
import {
  describe,
  failedCall,
  type FetchResult,
  type FetchVisit,
  fetchHeadersAndBody,
  fetchResult,
  fetchTimeoutMs,
  fetchUrl,
} from "../advance/tasks/fetch.js";
import type { Scope } from "@baton/expr";
import { checkFetchTarget, type FetchPolicy, knownLiteralVerdict, type Resolver } from "./host-policy.js";
import { type HttpResponse, httpCall } from "./http-call.js";
import { tracing } from "../../tracing/index.js";

// The I/O of a fetch task: where the call may connect, the call, its timing. The pump hands it
// to the advance as its environment's `fetch` (pump/run-advance.ts); what is sent and how the
// answer is read is the advance's (advance/tasks/fetch.ts).

export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export interface FetchContext extends FetchVisit {
  scope: Scope;
  policy: FetchPolicy;
  /** The system resolver unless a test gives another. */
  resolve?: Resolver;
  defs?: Record<string, Schema>;
  /** Aborted when the advance is abandoned (lease lost, engine stopping). */
  abort?: AbortSignal;
  maxResponseBytes?: number;
  /** Told of every call that was made (not one refused before it): the metrics hook. No status = no response. */
  observeCall?: (host: string, status: number | undefined, seconds: number) => void;
  /** The advance's span, the client span's parent, while the server traces (docs/tracing.md "Spans"). */
  traceParent?: string;
}

/** Runs one attempt of a fetch task; throws TaskFailure with a code of docs/language.md#error-codes. */
export async function runFetch(fetch: CompiledFetch, ctx: FetchContext): Promise<FetchResult> {
  const url = fetchUrl(fetch, ctx.scope);
  const host = url.host;
  // A literal checked before answers without a turn of the event loop (host-policy.ts).
  const target =
    knownLiteralVerdict(url.hostname, ctx.policy) ?? (await checkFetchTarget(url.hostname, ctx.policy, ctx.resolve));
  if (!target.ok)
    failedCall(new TaskFailure("pre.error", `fetch to ${describe(url)} refused: ${target.reason}`), { host });
  const { method, headers, body } = fetchHeadersAndBody(fetch, ctx, ctx.scope);
  // The client span of the call, a child of the advance's (docs/tracing.md "Spans"); the
  // upstream receives it as `traceparent` unless the definition sets that header itself. The
  // URL is recorded without its query, which may carry secrets (docs/engine.md "fetch").
  const tracer = tracing();
  const span = tracer?.startSpan(
    method,
    "client",
    {
      "http.request.method": method,
      "server.address": url.hostname,
      "server.port": Number(url.port || (url.protocol === "https:" ? 443 : 80)),
      "url.full": `${url.origin}${url.pathname}`,
      "baton.task": ctx.taskId,
    },
    ctx.traceParent,
  );
  if (span !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === "traceparent"))
    headers.traceparent = tracer!.traceparentOf(span);

  const began = performance.now();
  const latency = () => Math.round(performance.now() - began);
  let status: number | undefined;
  let response: HttpResponse;
  try {
    response = await httpCall({
      method,
      url,
      headers,
      body,
      timeoutMs: fetchTimeoutMs(fetch, ctx.scope),
      maxResponseBytes: ctx.maxResponseBytes ?? MAX_RESPONSE_BYTES,
      abort: ctx.abort,
      address: { address: target.address, family: target.family },
    });
    status = response.status;
  } catch (error) {
    if (span !== undefined) tracer!.fail(span, error instanceof TaskFailure ? error.code : "pre.error");
    failedCall(error, { host, latencyMs: latency() });
  } finally {
    ctx.observeCall?.(host, status, (performance.now() - began) / 1000);
    if (span !== undefined) {
      if (status !== undefined) span.setAttribute("http.response.status_code", status);
      if (status !== undefined && status >= 400) tracer!.fail(span, String(status));
      span.end();
    }
  }
  const call = { host, latencyMs: latency() };
  try {
    return { ...fetchResult(fetch, response, url, ctx.defs), call };
  } catch (error) {
    failedCall(error, call);
  }
}
