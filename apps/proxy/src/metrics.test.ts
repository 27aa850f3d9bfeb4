import { readFileSync } from "node:fs";
import bcrypt from "bcryptjs";
import { createLogger } from "@baton/log";
import { startUpstream, type Upstream } from "@baton/testkit";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProxyApp } from "./app.js";
import { parseConfig } from "./config.js";

const quiet = createLogger("error", () => {});
let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(() => upstream.close());

type Family = { name: string; type: string; metrics: Array<{ labels?: Record<string, string>; value?: string }> };

async function scrape(app: ReturnType<typeof createProxyApp>): Promise<Map<string, Family>> {
  const res = await app.request("/metrics");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  const families = parsePrometheusTextFormat(await res.text()) as Family[];
  return new Map(families.map((f) => [f.name, f]));
}

function value(families: Map<string, Family>, name: string, labels: Record<string, string>): number {
  const series = families.get(name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return series ? Number(series.value) : 0;
}

/** The proxy's metric names as docs/metrics.md lists them. */
function documentedProxyMetrics(): string[] {
  const doc = readFileSync(new URL("../../../docs/metrics.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## The proxy's metrics"), doc.indexOf("## Example alert rules"));
  return [...section.matchAll(/^\| `(baton_proxy_[a-z_]+)`/gm)].map((m) => m[1]!);
}

describe("the proxy's /metrics", () => {
  it("serves every documented metric in the Prometheus text format, without a login", async () => {
    const app = createProxyApp({ config: null, server: upstream.url, uiDir: "/nonexistent", log: quiet });
    const families = await scrape(app);
    const documented = documentedProxyMetrics();
    expect(documented.length).toBe(3);
    for (const name of [...documented, "nodejs_eventloop_lag_seconds", "process_cpu_seconds_total"])
      expect(families.has(name), name).toBe(true);
    // promtool's naming rule: counters end in _total, and nothing else does.
    const misnamed = [...families.values()].filter((f) => (f.type === "COUNTER") !== f.name.endsWith("_total"));
    expect(misnamed.map((f) => `${f.name} (${f.type})`)).toEqual([]);
  });

  it("counts requests by route and status, and sign-ins by outcome", async () => {
    const config = parseConfig(`
server: ${upstream.url}
login:
  passwords: [{ email: ann@example.com, hash: "${bcrypt.hashSync("pw-ann", 4)}" }]
token: { secret: "${"t".repeat(32)}" }
`);
    const app = createProxyApp({ config, server: config.server, uiDir: "/nonexistent", log: quiet });
    const login = (password: string) =>
      app.request("http://proxy.test/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ann@example.com", password }),
      });
    expect((await login("wrong")).status).toBe(401);
    expect((await login("pw-ann")).status).toBe(200);
    expect((await app.request("/healthz")).status).toBe(200);
    await app.request("/api/instances/some-id");
    await app.request("/");
    const families = await scrape(app);
    expect(value(families, "baton_proxy_sign_ins_total", { method: "password", outcome: "ok" })).toBe(1);
    expect(value(families, "baton_proxy_sign_ins_total", { method: "password", outcome: "refused" })).toBe(1);
    expect(value(families, "baton_proxy_http_requests_total", { route: "auth", status: "401" })).toBe(1);
    expect(value(families, "baton_proxy_http_requests_total", { route: "api", status: "200" })).toBe(1);
    expect(value(families, "baton_proxy_http_requests_total", { route: "api", status: "401" })).toBe(1);
    expect(value(families, "baton_proxy_http_requests_total", { route: "ui", status: "200" })).toBe(1);
  });
});
