// GET /metrics of a real server under --auth token, scraped with a real Prometheus text parser:
// it needs read, serves every metric docs/metrics.md lists, and counts HTTP requests by action
// and external-task calls by outcome.
import { client, type SharedDatabase, sharedDatabase, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapToken } from "../../support/auth-fixtures.js";
import { documentedMetrics, histogramCount, parse, value } from "../../support/prometheus.js";

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
    // promtool's naming rule: counters end in _total, and nothing else does.
    const misnamed = [...m.values()].filter((f) => (f.type === "COUNTER") !== f.name.endsWith("_total"));
    expect(misnamed.map((f) => `${f.name} (${f.type})`)).toEqual([]);
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

  it("counts requests refused or answered as missing because of the caller's scopes, by scope rule", async () => {
    const admin = client(server.url, { authorization: `Bearer ${adminToken}` });
    const created = await admin.post("/api/tokens", { label: "scoped reader", perms: ["read"], scopes: ["orders-*"] });
    expect(created.status, created.text).toBe(200);
    const scoped = client(server.url, { authorization: `Bearer ${created.body.token}` });
    const before = parse(await scrapeText());
    expect((await scoped.get("/api/definitions/billing/versions/1")).status).toBe(404);
    expect((await scoped.get("/api/definitions/orders-x/versions/1")).status, "in scope: a plain 404").toBe(404);
    const after = parse(await scrapeText());
    expect(
      value(after, "baton_scope_refusals_total", { rule: "path-process" }) -
        value(before, "baton_scope_refusals_total", { rule: "path-process" }),
    ).toBe(1);
  });
});
