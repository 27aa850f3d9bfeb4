import { instanceTraceparent, tracing } from "../../tracing/index.js";

/** What of a claimed delivery its span records. */
export interface DeliveryTraced {
  subscription: string;
  attempts: number;
  type: string;
  data: string;
  trace_parent?: string | null;
  trace_root?: string | null;
}

/**
 * The client span of one delivery attempt (docs/tracing.md "Spans"), a child of the trace of the
 * instance the event is about (a schedule's failed fire has none: a trace of its own). The URL
 * without its query, never the body, the secret or the signature.
 */
export function deliverySpan(c: DeliveryTraced, url: URL) {
  const tracer = tracing();
  if (tracer === undefined) return undefined;
  const instanceId = (JSON.parse(c.data) as { instance_id?: unknown }).instance_id;
  const parent =
    typeof instanceId === "string"
      ? instanceTraceparent(c.trace_parent ?? null, c.trace_root ?? instanceId, instanceId)
      : undefined;
  return tracer.startSpan(
    "POST",
    "client",
    {
      "http.request.method": "POST",
      "server.address": url.hostname,
      "server.port": Number(url.port || (url.protocol === "https:" ? 443 : 80)),
      "url.full": `${url.origin}${url.pathname}`,
      "baton.event_type": c.type,
      "baton.subscription": c.subscription,
      "baton.delivery_attempt": c.attempts + 1,
      ...(typeof instanceId === "string" ? { "baton.instance_id": instanceId } : {}),
    },
    parent,
  );
}
