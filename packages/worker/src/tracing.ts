import type * as Otel from "@opentelemetry/api";
import type { ExternalTask } from "./types.js";

// The handler's span (docs/tracing.md "Workers"). `@opentelemetry/api` is an optional peer
// dependency: it is imported only once a claimed task carries a `traceparent`, and a worker
// without it (or whose application registered no tracer provider, where the API's no-op
// tracer makes spans free) runs its handlers exactly as before.

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

let loaded: Promise<typeof Otel | undefined> | undefined;

function otel(): Promise<typeof Otel | undefined> {
  // A variable, not a literal: bundlers leave the optional peer to the installing project.
  const name = "@opentelemetry/api";
  loaded ??= import(name).then(
    (m: typeof Otel & { default?: typeof Otel }) => (m.trace ? m : m.default),
    () => undefined,
  );
  return loaded;
}

/** Runs `handle` inside a consumer span that is a child of the task's `traceparent`; plainly without one. */
export async function withHandlerSpan<R>(task: ExternalTask, handle: () => R | Promise<R>): Promise<R> {
  const parsed = task.traceparent === undefined ? null : TRACEPARENT.exec(task.traceparent);
  const api = parsed === null ? undefined : await otel();
  if (api === undefined || parsed === null) return handle();
  const parent = api.trace.setSpanContext(api.ROOT_CONTEXT, {
    traceId: parsed[2]!,
    spanId: parsed[3]!,
    traceFlags: Number.parseInt(parsed[4]!, 16) & 1,
    isRemote: true,
  });
  const attributes: Otel.Attributes = {
    "baton.process": task.process,
    "baton.version": task.version,
    "baton.task": task.task,
    "baton.instance_id": task.instance_id,
    "baton.tree_root": task.root_id,
    "baton.task_epoch": task.task_epoch,
    "baton.attempt": task.attempt,
    ...(task.key === null ? {} : { "baton.business_key": task.key }),
  };
  const tracer = api.trace.getTracer("@baton/worker");
  return tracer.startActiveSpan(
    `handle ${task.task}`,
    { kind: api.SpanKind.CONSUMER, attributes },
    parent,
    async (span) => {
      try {
        const value = await handle();
        if (value !== null && typeof value === "object" && (value as { kind?: unknown }).kind === "baton.raised")
          span.setAttribute("error.type", String((value as { code?: unknown }).code));
        return value;
      } catch (error) {
        span.setAttribute("error.type", error instanceof Error ? error.name : "error");
        span.setStatus({ code: api.SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
