import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  type SpanContext,
  SpanStatusCode,
  TraceFlags,
  trace,
} from "@opentelemetry/api";
import { parseTraceParent, W3CTraceContextPropagator } from "@opentelemetry/core";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";

// The OpenTelemetry SDK as Baton runs it (docs/tracing.md). Only tracing/index.ts imports this
// module, and only dynamically when tracing is on: with it off, no OpenTelemetry package is
// loaded at all (docs/tracing.md "Off by default"). Every span is given its parent explicitly,
// as a traceparent: no context manager is registered, because an AsyncLocalStorage slows every
// promise of the process on Node 20 (docs/tracing.md "Logs").

export type { Span, Attributes, Context };

export interface Tracing {
  /** A span, a child of `parent` (a traceparent or a context); the root of a new trace without one. */
  startSpan(name: string, kind: Kind, attributes: Attributes, parent?: string | Context): Span;
  /** The W3C `traceparent` of a span (docs/tracing.md "The trace of an instance"). */
  traceparentOf(span: Span): string;
  /** The context of an incoming request's `traceparent`/`tracestate` headers (ROOT when none). */
  fromHeaders(get: (name: string) => string | null | undefined): Context;
  /** The `trace_id` and `span_id` fields of a log line written inside `span` (docs/tracing.md "Logs"). */
  logFields(span: Span): { trace_id: string; span_id: string };
  /** Ends `span` as failed with `code` (error.type) and `message`. */
  fail(span: Span, code: string, message?: string): void;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/** A span's kind, named so that callers need no OpenTelemetry import. */
export type Kind = "internal" | "server" | "client" | "producer" | "consumer";
const KINDS: Record<Kind, SpanKind> = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

/** The OTLP exporter the standard variables choose: http/protobuf (the default) or http/json. */
async function exporterOf(env: Env, warn: (msg: string, fields?: Record<string, unknown>) => void) {
  const kinds = (env.OTEL_TRACES_EXPORTER ?? "otlp").split(",").map((s) => s.trim());
  const exporters: SpanExporter[] = [];
  if (kinds.includes("console")) exporters.push(new ConsoleSpanExporter());
  if (kinds.includes("otlp")) {
    const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf";
    if (protocol === "http/json") {
      const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
      exporters.push(new OTLPTraceExporter());
    } else {
      if (protocol !== "http/protobuf")
        warn("OTEL_EXPORTER_OTLP_PROTOCOL is not supported; exporting with http/protobuf", { protocol });
      const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
      exporters.push(new OTLPTraceExporter());
    }
  }
  return exporters;
}

export async function startSdk(
  env: Env,
  version: string,
  warn: (msg: string, fields?: Record<string, unknown>) => void,
): Promise<Tracing> {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win over Baton's defaults.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: "baton-api", [ATTR_SERVICE_VERSION]: version }))
    .merge(detectResources({ detectors: [envDetector] }));
  // BasicTracerProvider reads OTEL_TRACES_SAMPLER(_ARG) and OTEL_SPAN_*_LIMIT; BatchSpanProcessor
  // reads OTEL_BSP_*; the exporters read OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT/HEADERS/TIMEOUT.
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: (await exporterOf(env, warn)).map((e) => new BatchSpanProcessor(e)),
  });
  const propagator = new W3CTraceContextPropagator();
  const tracer = provider.getTracer("baton-api", version);
  const contextOf = (traceparent: string) => {
    const parsed = parseTraceParent(traceparent);
    return parsed && trace.isSpanContextValid(parsed)
      ? trace.setSpanContext(ROOT_CONTEXT, { ...parsed, isRemote: true })
      : ROOT_CONTEXT;
  };

  return {
    startSpan(name, kind, attributes, parent) {
      const ctx = parent === undefined ? ROOT_CONTEXT : typeof parent === "string" ? contextOf(parent) : parent;
      return tracer.startSpan(name, { kind: KINDS[kind], attributes }, ctx);
    },
    traceparentOf(span) {
      return formatTraceparent(span.spanContext());
    },
    fromHeaders(get) {
      return propagator.extract(ROOT_CONTEXT, undefined, {
        get: (_carrier, key) => get(key) ?? undefined,
        keys: () => [],
      });
    },
    logFields(span) {
      const sc = span.spanContext();
      return { trace_id: sc.traceId, span_id: sc.spanId };
    },
    fail(span, code, message) {
      span.setAttribute("error.type", code);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}

function formatTraceparent(sc: SpanContext): string {
  return `00-${sc.traceId}-${sc.spanId}-0${(sc.traceFlags & TraceFlags.SAMPLED).toString(16)}`;
}
