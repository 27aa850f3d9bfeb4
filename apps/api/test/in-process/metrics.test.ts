// The engine's metrics in-process, scraped with a real Prometheus text parser: claims, advances,
// commits, fetch calls, reclaims, only_once interruptions, sampled gauges and the pool move
// with work on the test's clock; the dashboard and alert rules query documented metrics only.
import { readFileSync } from "node:fs";
import { json, startUpstream, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine } from "../../src/engine/index.js";
import { leaseDue } from "../../src/engine/leases.js";
import { LEASE_MS } from "../../src/engine/statuses.js";
import { createMetrics, type Metrics } from "../../src/metrics/metrics.js";
import { sampleOnce } from "../../src/metrics/sampler.js";
import type { EngineHandle } from "../../src/engine/index.js";
import { type Harness, openHarness, quietLog } from "../support/engine-harness.js";
import { documentedMetrics, histogramCount, parse, value } from "../support/prometheus.js";

describe("the dashboard and the alert rules", () => {
  it("query only metrics docs/metrics.md documents", () => {
    const documented = new Set(documentedMetrics());
    const dashboard = JSON.parse(
      readFileSync(new URL("../../../../docker/grafana-dashboard.json", import.meta.url), "utf8"),
    );
    const doc = readFileSync(new URL("../../../../docs/metrics.md", import.meta.url), "utf8");
    const alerts = doc.slice(doc.indexOf("## Example alert rules"));
    const exprs = [
      ...dashboard.panels.flatMap((p: { targets: Array<{ expr: string }> }) => p.targets.map((t) => t.expr)),
      alerts,
    ];
    const used = new Set(exprs.flatMap((e) => [...e.matchAll(/\b((?:baton|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!)));
    const base = (name: string) => name.replace(/_(bucket|sum|count)$/, "").replace(/_p\d+_seconds$/, "_seconds");
    expect([...used].filter((name) => !documented.has(base(name)))).toEqual([]);
    expect(used.size).toBeGreaterThan(15);
  });
});

let up: Upstream;
beforeAll(async () => {
  up = await startUpstream((req, res) => json(res, req.path.startsWith("/fail") ? 500 : 200, { ok: true }));
});
afterAll(async () => {
  await up?.close();
});

describe("metrics of the engine, in-process", () => {
  let h: Harness;
  let metrics: Metrics;
  let engine: EngineHandle;
  const scrape = async () => parse(await metrics.registry.metrics());
  const fetchTask = (id: string, path: string, onlyOnce = false) => ({
    id,
    ...(onlyOnce ? { only_once: true } : {}),
    action: { type: "fetch", url: `${up.url}${path}` },
    output: {},
  });

  beforeAll(async () => {
    h = await openHarness();
    metrics = createMetrics({ pool: h.database.pool });
    engine = createEngine({
      db: h.db,
      clock: h.clock,
      config: h.config,
      log: quietLog,
      workerId: "metered",
      metrics: metrics.engine,
    });
    await h.deploy({ name: "m_ok", tasks: [fetchTask("call", "/ok")] });
    await h.deploy({ name: "m_fail", tasks: [fetchTask("call", "/fail")] });
    await h.deploy({ name: "m_once", tasks: [fetchTask("charge", "/ok", true)] });
  });
  afterAll(async () => {
    await engine?.stop();
    await h?.close();
  });

  it("counts claims, advances by task kind and outcome, commits and fetch calls by host and status class", async () => {
    const host = new URL(up.url).host;
    const ok = await h.start("m_ok");
    const failing = await h.start("m_fail");
    expect(await engine.tick()).toBe(2);
    expect((await h.get(ok)).status).toBe("completed");
    expect((await h.get(failing)).status).toBe("failed");
    const text = await metrics.registry.metrics();
    const m = parse(text);
    expect(m.get("baton_advance_duration_seconds")?.type).toBe("HISTOGRAM");
    expect(value(m, "baton_claim_rounds_total")).toBe(1);
    expect(value(m, "baton_claimed_rows_total")).toBe(2);
    expect(value(m, "baton_advances_total", { task_kind: "fetch", outcome: "completed" })).toBe(1);
    expect(value(m, "baton_advances_total", { task_kind: "fetch", outcome: "failed" })).toBe(1);
    expect(histogramCount(text, "baton_advance_duration_seconds", { task_kind: "fetch" })).toBe(2);
    expect(value(m, "baton_advances_total", { process: "m_ok", outcome: "completed" })).toBe(1);
    expect(histogramCount(text, "baton_advance_duration_seconds", { process: "m_fail" })).toBe(1);
    expect(value(m, "baton_fetch_calls_total", { host, status_class: "2xx" })).toBe(1);
    expect(value(m, "baton_fetch_calls_total", { host, status_class: "5xx" })).toBe(1);
    expect(histogramCount(text, "baton_fetch_duration_seconds", { host })).toBe(2);
    expect(value(m, "baton_commits_total")).toBeGreaterThanOrEqual(1);
    const batches = m.get("baton_commit_batch_size")!.metrics[0]!;
    expect(Number(batches.sum)).toBe(2);
    expect(value(m, "baton_lease_reclaims_total")).toBe(0);
  });

  it("with exemplars (tracing on) writes OpenMetrics whose duration buckets name a trace", () => {
    const traced = createMetrics({ exemplars: true });
    const trace = { trace_id: "4bf92f3577b34da6a3ce929d0e0e4736", span_id: "00f067aa0ba902b7" };
    traced.engine.advanced("fetch", "completed", 0.02, "orders", trace);
    traced.engine.fetched("api.example:443", "2xx", 0.01, trace);
    traced.http("startInstance", 200, 0.003, trace);
    expect(traced.registry.contentType).toContain("application/openmetrics-text");
    return traced.registry.metrics().then((text) => {
      const exemplar = '# {trace_id="4bf92f3577b34da6a3ce929d0e0e4736",span_id="00f067aa0ba902b7"}';
      for (const family of [
        "baton_advance_duration_seconds",
        "baton_fetch_duration_seconds",
        "baton_http_request_duration_seconds",
      ])
        expect(
          text.split("\n").some((line) => line.startsWith(`${family}_bucket`) && line.includes(exemplar)),
          family,
        ).toBe(true);
    });
  });

  it("samples live instances, the due queue's lag and expired leases from the database", async () => {
    const waiting = await h.start("m_ok");
    h.clock.advance(3_000);
    await sampleOnce(h.db, h.clock, metrics);
    let m = await scrape();
    expect(value(m, "baton_instances", { status: "running", phase: "none" })).toBe(1);
    expect(value(m, "baton_instances", { status: "failed" }), "settled instances are not sampled").toBe(0);
    expect(value(m, "baton_instances_due")).toBe(1);
    expect(value(m, "baton_queue_lag_seconds")).toBeGreaterThanOrEqual(3);
    expect(value(m, "baton_leases_expired")).toBe(0);
    const sampledAt = value(m, "baton_metrics_sampled_timestamp_seconds");
    expect(sampledAt).toBeGreaterThanOrEqual(h.clock.now() / 1000 - 60);
    expect(sampledAt).toBeLessThanOrEqual(h.clock.now() / 1000);

    // A worker claims it and the only_once instance, then dies: their leases expire unclaimed.
    const once = await h.start("m_once");
    expect((await leaseDue(h.db, "dead-worker", h.clock.now(), 10)).map((r) => r.id).sort()).toEqual(
      [waiting, once].sort(),
    );
    h.clock.advance(LEASE_MS + 1);
    await sampleOnce(h.db, h.clock, metrics);
    m = await scrape();
    expect(value(m, "baton_leases_expired")).toBe(2);
    expect(value(m, "baton_instances_due"), "an expired lease is due again").toBe(2);

    expect(await engine.tick()).toBe(2);
    expect((await h.get(once)).errorCode).toBe("only_once.interrupted");
    await sampleOnce(h.db, h.clock, metrics);
    m = await scrape();
    expect(value(m, "baton_lease_reclaims_total")).toBe(2);
    expect(value(m, "baton_only_once_interruptions_total")).toBe(1);
    expect(value(m, "baton_leases_expired")).toBe(0);
    expect(value(m, "baton_instances_due")).toBe(0);
    expect(value(m, "baton_queue_lag_seconds")).toBe(0);
  });

  it("shows a transaction in flight as a pool connection in use", async () => {
    expect(value(await scrape(), "baton_db_pool_in_use")).toBe(0);
    const during = await h.db.transaction(async () => scrape());
    expect(value(during, "baton_db_pool_in_use")).toBe(1);
    expect(value(during, "baton_db_pool_size")).toBeGreaterThanOrEqual(1);
    expect(value(await scrape(), "baton_db_pool_in_use")).toBe(0);
  });
});
