// /metrics, scraped with a real Prometheus text parser: every metric docs/metrics.md lists is
// served, and the figures move when work happens — in-process with the engine on the test's
// clock (claims, advances, commits, fetch calls, reclaims, only_once interruptions, sampled
// gauges, the pool), and through a real server under --auth token (access, HTTP by action,
// external-task calls by outcome).
import { readFileSync } from "node:fs";
import { client, json, startServer, startUpstream, type TestServer, type Upstream } from "@baton/testkit";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine } from "../src/engine/index.js";
import { claimDue } from "../src/engine/pump/claim.js";
import { LEASE_MS } from "../src/engine/statuses.js";
import { createMetrics, type Metrics } from "../src/metrics/metrics.js";
import { sampleOnce } from "../src/metrics/sampler.js";
import type { EngineHandle } from "../src/services.js";
import { bootstrapToken, type SharedDatabase, sharedDatabase } from "./auth-fixtures.js";
import { type Harness, openHarness, quietLog } from "./engine-harness.js";

type Family = {
  name: string;
  type: string;
  metrics: Array<{ labels?: Record<string, string>; value?: string; count?: string; sum?: string }>;
};

function parse(text: string): Map<string, Family> {
  return new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f]));
}

/** A counter or gauge's value summed over the series with these labels; 0 when absent. */
function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const series = families
    .get(name)
    ?.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return (series ?? []).reduce((sum, m) => sum + Number(m.value ?? 0), 0);
}

/**
 * A histogram's observation count over the series with these labels, from the `_count` lines of
 * the text: parse-prometheus-text-format keeps the family but folds labelled histograms into
 * one bucket map, dropping their labels and counts.
 */
function histogramCount(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const m of text.matchAll(new RegExp(`^${name}_count\\{([^}]*)\\} (\\S+)$`, "gm"))) {
    const got = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) total += Number(m[2]);
  }
  return total;
}

/** The API's metrics as docs/metrics.md's "Every metric" table lists them. */
function documentedMetrics(): string[] {
  const doc = readFileSync(new URL("../../../docs/metrics.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## Every metric"), doc.indexOf("## The proxy's metrics"));
  return [...section.matchAll(/^\| `([a-z_]+)`/gm)].map((m) => m[1]!);
}

describe("the dashboard and the alert rules", () => {
  it("query only metrics docs/metrics.md documents", () => {
    const documented = new Set(documentedMetrics());
    const dashboard = JSON.parse(
      readFileSync(new URL("../../../docker/grafana-dashboard.json", import.meta.url), "utf8"),
    );
    const doc = readFileSync(new URL("../../../docs/metrics.md", import.meta.url), "utf8");
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
    expect(value(m, "baton_fetch_calls_total", { host, status_class: "2xx" })).toBe(1);
    expect(value(m, "baton_fetch_calls_total", { host, status_class: "5xx" })).toBe(1);
    expect(histogramCount(text, "baton_fetch_duration_seconds", { host })).toBe(2);
    expect(value(m, "baton_commits_total")).toBeGreaterThanOrEqual(1);
    const batches = m.get("baton_commit_batch_size")!.metrics[0]!;
    expect(Number(batches.sum)).toBe(2);
    expect(value(m, "baton_lease_reclaims_total")).toBe(0);
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
    expect((await claimDue(h.db, "dead-worker", h.clock.now(), 10)).map((r) => r.id).sort()).toEqual(
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

describe("GET /metrics on a server with --auth token", () => {
  let database: SharedDatabase;
  let server: TestServer;
  let readToken: string;
  let adminToken: string;

  beforeAll(async () => {
    database = await sharedDatabase();
    readToken = await bootstrapToken(database, "prometheus", "read");
    adminToken = await bootstrapToken(database, "admin", "admin");
    server = await startServer({ database: database.location, args: ["--auth", "token", "--poll", "0"] });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await database?.dispose();
  });

  const scrapeText = async () => {
    const res = await client(server.url, { authorization: `Bearer ${readToken}` }).get("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    return res.text;
  };
  const scrape = async () => parse(await scrapeText());

  it("needs a credential with read, and then serves every documented metric", async () => {
    expect((await client(server.url).get("/metrics")).status).toBe(401);
    const m = await scrape();
    const documented = documentedMetrics();
    expect(documented.length).toBeGreaterThan(25);
    const missing = documented.filter((name) => !m.has(name));
    expect(missing).toEqual([]);
  });

  it("counts HTTP requests by action name and status, and external-task calls by outcome", async () => {
    const admin = client(server.url, { authorization: `Bearer ${adminToken}` });
    const beforeText = await scrapeText();
    const before = parse(beforeText);
    expect((await admin.get("/api/definitions")).status).toBe(200);
    expect((await admin.get("/api/instances/01a20b0a-c6f3-7740-a521-bea3eb52b53c")).status).toBe(404);
    expect((await admin.post("/api/external-tasks/claim", { worker_id: "w1", limit: 1 })).status).toBe(200);
    const resolve = await admin.post("/api/external-tasks/resolve", { token: "not-a-claim-token", result: {} });
    expect(resolve.status).toBe(404);
    const afterText = await scrapeText();
    const after = parse(afterText);
    const moved = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    expect(moved("baton_http_requests_total", { action: "listDefinitions", status: "200" })).toBe(1);
    expect(moved("baton_http_requests_total", { action: "getInstance", status: "404" })).toBe(1);
    const count = (text: string) =>
      histogramCount(text, "baton_http_request_duration_seconds", { action: "listDefinitions" });
    expect(count(afterText) - count(beforeText)).toBe(1);
    expect(moved("baton_http_requests_total", { action: "metrics", status: "200" })).toBe(1);
    expect(moved("baton_external_calls_total", { call: "claim", outcome: "empty" })).toBe(1);
    expect(moved("baton_external_calls_total", { call: "resolve", outcome: "not_found" })).toBe(1);
    const unmatched = await admin.get("/nowhere");
    expect(unmatched.status).toBe(404);
    expect(value(await scrape(), "baton_http_requests_total", { action: "unmatched", status: "404" })).toBe(1);
  });
});
