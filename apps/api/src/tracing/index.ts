import type { Tracing } from "./sdk.js";

// Tracing's switch (docs/tracing.md). This module imports nothing at run time: the
// OpenTelemetry SDK (sdk.ts) is loaded by startTracing only when the OTEL_* variables turn
// tracing on, so a server without them loads no OpenTelemetry code and every call site costs
// one `tracing() === undefined` test.

export type { Tracing } from "./sdk.js";

let active: Tracing | undefined;

/** The running tracing, or undefined when it is off (the default). */
export function tracing(): Tracing | undefined {
  return active;
}

/**
 * On when OTEL_TRACES_EXPORTER names `otlp` or `console`, or when it is unset and an OTLP
 * endpoint is given (OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); off when
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none (docs/tracing.md "Configuration").
 */
export function tracingWanted(env: Record<string, string | undefined>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter !== undefined && exporter !== "")
    return exporter.split(",").some((e) => e.trim() === "otlp" || e.trim() === "console");
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** Loads and starts the SDK when `env` asks for tracing; idempotent. */
export async function startTracing(
  env: Record<string, string | undefined>,
  version: string,
  warn: (msg: string, fields?: Record<string, unknown>) => void,
): Promise<Tracing | undefined> {
  if (active !== undefined || !tracingWanted(env)) return active;
  const { startSdk } = await import("./sdk.js");
  active = await startSdk(env, version, warn);
  return active;
}

/** Exports the spans still buffered; after it tracing is off. Never fails: spans it cannot export are lost, the shutdown goes on. */
export async function stopTracing(): Promise<void> {
  const stopping = active;
  active = undefined;
  await stopping?.shutdown().catch(() => {});
}

/**
 * The trace context an instance's spans hang from (docs/tracing.md "The trace of an
 * instance"): its stored `trace_parent`, else one derived from its ids — the tree root's id as
 * the trace id (a UUID is 32 hex digits, as a trace id is), the instance id's random tail as the
 * parent span id — so an instance started while tracing was off still has one trace per tree.
 */
export function instanceTraceparent(stored: string | null, rootId: string, instanceId: string): string {
  if (stored !== null) return stored;
  const trace = rootId.replaceAll("-", "");
  const span = instanceId.replaceAll("-", "").slice(16);
  return `00-${trace}-${span}-01`;
}

/** The trace id of a traceparent (the instance log entries' `trace_id`, docs/api.md "Extensions"). */
export function traceIdOf(traceparent: string): string {
  return traceparent.slice(3, 35);
}
