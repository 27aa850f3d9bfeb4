// docs/tracing.md: one order followed from the caller through every task, call and worker. The
// server exports to a real OTLP/HTTP receiver on loopback (test/support/otlp-receiver.ts,
// decoding the exporter's JSON and protobuf payloads); the worker runs @baton/worker in this
// process under an OpenTelemetry SDK of its own, as an application would.
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createWorker } from "@baton/worker";
import {
  client,
  json,
  settled,
  startServer,
  startUpstream,
  type TestServer,
  type Upstream,
  until,
} from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy } from "../../support/instances-fixtures.js";
import { type OtlpReceiver, startOtlpReceiver } from "../../support/otlp-receiver.js";

const SECRET = "tr4ce-secret-value-9f2c1d";
const OTLP_TOKEN = "otlp-header-token-5b7e";
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

let receiver: OtlpReceiver;
let up: Upstream;
/** The traceparent each upstream path received. */
const received = new Map<string, string | undefined>();
// The worker's own SDK, as an application using @baton/worker would register it.
const workerSpans = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(workerSpans)] });

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  up = await startUpstream((req, res) => {
    received.set(req.path.split("?")[0]!, req.headers.traceparent as string | undefined);
    json(res, 200, { ok: true });
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  await up?.close();
  await receiver.close();
  await provider.shutdown();
});

/** A server tracing to the receiver, in OTLP's JSON protocol or its default, protobuf. */
function tracedServer(database?: string, protocol: "http/json" | "http/protobuf" = "http/json"): Promise<TestServer> {
  return startServer({
    args: ["--poll", "100"],
    database,
    env: {
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer ${OTLP_TOKEN}`,
      OTEL_SERVICE_NAME: "baton-traces-test",
      OTEL_BSP_SCHEDULE_DELAY: "50",
      BATON_TRACED_ORDER_API_KEY: SECRET,
    },
  });
}

const spansOf = (traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);
const named = (traceId: string, name: string) => spansOf(traceId).filter((s) => s.name === name);
const one = (traceId: string, name: string) => until(`span "${name}"`, async () => named(traceId, name)[0]);

async function runWorker(server: TestServer, task: string): Promise<void> {
  const worker = createWorker({
    server: server.url,
    process: "traced_order",
    task,
    once: true,
    handler: async () => {
      // Inside the handler's span: its context is what the application's own calls propagate.
      const active = trace.getActiveSpan()?.spanContext();
      return { approved: true, by: active?.traceId ?? "no span" };
    },
  });
  await worker.run();
}

describe("traces", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await tracedServer();
    const api = client(server.url);
    await deploy(api, {
      name: "traced_child",
      tasks: [{ id: "notify", action: { type: "fetch", url: `${up.url}/child/notify` } }],
    });
    await deploy(api, {
      name: "traced_order",
      input_schema: { type: "object", properties: { order: { type: "string" } } },
      config_schema: {
        type: "object",
        properties: { api_key: { type: "string", secret: true } },
        required: ["api_key"],
      },
      tasks: [
        {
          id: "charge",
          action: {
            type: "fetch",
            method: "post",
            url: `${up.url}/charge`,
            query: { sig: "$: config.api_key" },
            headers: { "x-api-key": "$: config.api_key" },
            body: { order: "$: input.order" },
          },
        },
        {
          id: "approve",
          action: {
            type: "external",
            input: { order: "$: input.order" },
            result_schema: { type: "object", properties: { approved: { type: "boolean" }, by: { type: "string" } } },
          },
        },
        { id: "spawn", action: { type: "child", name: "traced_child", input: {} } },
      ],
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("joins the caller, every task, the fetch, the worker's handler and the child in one trace", async () => {
    const api = client(server.url);
    const subscribed = await api.put("/api/subscriptions/traced_hook", {
      url: `${up.url}/hook`,
      events: ["instance.completed"],
      process: "traced_order",
    });
    expect(subscribed.status, subscribed.text).toBe(200);
    const started = await api.post(
      "/api/instances",
      { process: "traced_order", input: { order: "A-1" }, key: "order-A-1" },
      { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    );
    expect(started.status, started.text).toBe(200);
    const id = started.body.id as string;
    await until("the instance to park on approve", async () => {
      const view = (await api.get(`/api/instances/${id}/detail`)).body;
      return view.task === "approve" && view.phase === "external" ? view : undefined;
    });
    await runWorker(server, "approve");
    expect((await settled(api, id)).status).toBe("completed");

    const request = await one(CALLER_TRACE, "POST /api/instances");
    expect(request.parentSpanId, "the request span is the caller's child").toBe(CALLER_SPAN);
    expect(request.kind).toBe(2); // SERVER
    expect(request.attributes).toMatchObject({ "http.request.method": "POST", "http.route": "/api/instances" });
    expect(request.attributes["http.response.status_code"]).toBe(200);
    expect(request.service).toBe("baton-traces-test");

    const start = await one(CALLER_TRACE, "start traced_order");
    expect(start.parentSpanId).toBe(request.spanId);
    expect(start.attributes).toMatchObject({
      "baton.process": "traced_order",
      "baton.instance_id": id,
      "baton.tree_root": id,
      "baton.business_key": "order-A-1",
    });

    const charge = await one(CALLER_TRACE, "advance charge");
    expect(charge.parentSpanId, "each advance hangs from the instance's start span").toBe(start.spanId);
    expect(charge.attributes).toMatchObject({
      "baton.task": "charge",
      "baton.task_kind": "fetch",
      "baton.attempt": 1,
      "baton.outcome": "running",
    });
    const call = await until("the fetch's client span", async () =>
      named(CALLER_TRACE, "POST").find((span) => span.attributes["baton.task"] === "charge"),
    );
    expect(call.kind).toBe(3); // CLIENT
    expect(call.parentSpanId).toBe(charge.spanId);
    expect(call.attributes["url.full"]).toBe(`${up.url}/charge`);
    expect(call.attributes["http.response.status_code"]).toBe(200);
    expect(received.get("/charge"), "the upstream joins the trace under the client span").toBe(
      `00-${CALLER_TRACE}-${call.spanId}-01`,
    );

    const handled = workerSpans.getFinishedSpans().find((s) => s.name === "handle approve");
    expect(handled, "the worker's handler span").toBeDefined();
    expect(handled!.spanContext().traceId).toBe(CALLER_TRACE);
    expect(handled!.parentSpanContext?.spanId).toBe(start.spanId);
    expect(handled!.attributes).toMatchObject({ "baton.instance_id": id, "baton.business_key": "order-A-1" });
    const approve = await one(CALLER_TRACE, "advance approve");
    expect(approve.parentSpanId).toBe(start.spanId);

    const spawn = await one(CALLER_TRACE, "advance spawn");
    const notify = await one(CALLER_TRACE, "advance notify");
    expect(notify.parentSpanId, "the child's advances hang from the spawning advance").toBe(spawn.spanId);
    expect(notify.attributes["baton.tree_root"]).toBe(id);
    expect(notify.attributes["baton.instance_id"]).not.toBe(id);
    expect(received.get("/child/notify")?.slice(3, 35)).toBe(CALLER_TRACE);
    await until("the parent's collecting advance", async () =>
      named(CALLER_TRACE, "advance spawn").find((s) => s.attributes["baton.outcome"] === "completed"),
    );

    // The webhook of its completion joins the trace too, under the instance's start span.
    const hook = await until("the webhook delivery's span", async () =>
      named(CALLER_TRACE, "POST").find((span) => span.attributes["baton.event_type"] === "instance.completed"),
    );
    expect(hook.parentSpanId).toBe(start.spanId);
    expect(hook.attributes["baton.subscription"]).toBe("traced_hook");
    expect(received.get("/hook")).toBe(`00-${CALLER_TRACE}-${hook.spanId}-01`);

    const scraped = await fetch(`${server.url}/metrics`);
    expect(scraped.headers.get("content-type")).toContain("application/openmetrics-text");
    const metricsText = await scraped.text();
    expect(
      metricsText
        .split("\n")
        .some(
          (line) =>
            line.startsWith("baton_advance_duration_seconds_bucket") && line.includes(`trace_id="${CALLER_TRACE}"`),
        ),
      "an advance duration bucket's exemplar names the order's trace",
    ).toBe(true);
    expect(metricsText).toContain('baton_advances_total{process="traced_order",task_kind="fetch",outcome="running"}');

    const entries = (await api.get(`/api/instances/${id}/logs?limit=100`)).body.items as Array<{ trace_id?: string }>;
    expect(entries.length).toBeGreaterThan(0);
    expect(
      entries.every((e) => e.trace_id === CALLER_TRACE),
      "the instance's log entries carry its trace id",
    ).toBe(true);

    expect(
      receiver.headers.every((h) => h === `Bearer ${OTLP_TOKEN}`),
      "OTEL_EXPORTER_OTLP_HEADERS are sent",
    ).toBe(true);
    const exported = receiver.payloads.join("\n");
    expect(exported).not.toContain(SECRET);
    expect(exported).not.toContain(OTLP_TOKEN);
    expect(server.stderr()).not.toContain(SECRET);
  });

  it("a schedule's fire roots the trace of the instance it starts", async () => {
    const api = client(server.url);
    const put = await api.put("/api/schedules/traced_nightly", {
      process: "traced_child",
      cron: ["0 2 * * *"],
      input: {},
    });
    expect(put.status, put.text).toBe(200);
    const fired = await api.post("/api/schedules/traced_nightly/trigger");
    expect(fired.body.outcome, fired.text).toBe("started");
    const fire = await until("the fire span", async () => receiver.spans.find((s) => s.name === "fire traced_nightly"));
    expect(fire.parentSpanId, "a fire starts a trace of its own").toBeUndefined();
    expect(fire.attributes).toMatchObject({ "baton.schedule": "traced_nightly", "baton.fire_origin": "trigger" });
    const advance = await one(fire.traceId, "advance notify");
    expect(advance.parentSpanId).toBe(fire.spanId);
    expect(advance.attributes["baton.instance_id"]).toBe(fire.attributes["baton.instance_id"]);
  });

  it("a kill -9 and a restart between two tasks still yield one trace", async () => {
    const traceId = "5a1f2e3d4c5b6a79880796a5b4c3d2e1";
    const api = client(server.url);
    await deploy(api, {
      name: "traced_order",
      config_schema: { type: "object", properties: { api_key: { type: "string", secret: true } } },
      tasks: [
        { id: "hold", action: { type: "external", input: {} } },
        { id: "after", action: { type: "fetch", url: `${up.url}/after-restart` } },
      ],
    });
    const started = await api.post(
      "/api/instances",
      { process: "traced_order", input: {} },
      { traceparent: `00-${traceId}-${CALLER_SPAN}-01` },
    );
    const id = started.body.id as string;
    const first = await one(traceId, "advance hold");
    const start = await one(traceId, "start traced_order");
    await server.kill();
    // The restarted process exports in protobuf, OTLP's default protocol.
    const restarted = await tracedServer(server.database, "http/protobuf");
    try {
      await runWorker(restarted, "hold");
      expect((await settled(client(restarted.url), id)).status).toBe("completed");
      const after = await one(traceId, "advance after");
      expect(after.parentSpanId, "the restarted process continues the stored trace").toBe(start.spanId);
      expect(first.parentSpanId).toBe(start.spanId);
      expect(received.get("/after-restart")?.slice(3, 35)).toBe(traceId);
      expect(after.attributes).toMatchObject({ "baton.task": "after", "baton.attempt": 1, "baton.reclaimed": false });
      expect(receiver.contentTypes).toContain("application/x-protobuf");
    } finally {
      await restarted.stop();
    }
  });
});
