import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

// The proxy's own Prometheus metrics (docs/metrics.md, "The proxy's metrics"), with
// prom-client like baton-api: its requests by route, sign-ins, and the process defaults.

const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export type ProxyMetrics = ReturnType<typeof createProxyMetrics>;

/** The `route` label: a fixed set, never the raw path. */
export function routeOf(path: string): string {
  if (path === "/metrics") return "metrics";
  if (path === "/api" || path.startsWith("/api/") || path.startsWith("/public/") || path === "/healthz") return "api";
  if (path.startsWith("/auth/")) return "auth";
  return "ui";
}

export function createProxyMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which promtool flags (docs/metrics.md "Lint").
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"])
    registry.removeSingleMetric(name);
  const requests = new Counter({
    name: "baton_proxy_http_requests_total",
    help: "Requests by route (api, auth, ui, metrics) and status",
    labelNames: ["route", "status"],
    registers: [registry],
  });
  const seconds = new Histogram({
    name: "baton_proxy_http_request_duration_seconds",
    help: "Request duration by route and status",
    labelNames: ["route", "status"],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const signIns = new Counter({
    name: "baton_proxy_sign_ins_total",
    help: "Sign-ins by method (password, oidc) and outcome (ok, refused)",
    labelNames: ["method", "outcome"],
    registers: [registry],
  });
  for (const method of ["password", "oidc"])
    for (const outcome of ["ok", "refused"]) signIns.inc({ method, outcome }, 0);
  return {
    registry,
    request(method: string, path: string, status: number, durationSeconds: number): void {
      const labels = { route: routeOf(path), status: String(status) };
      requests.inc(labels);
      seconds.observe(labels, durationSeconds);
      // A sign-in ends at POST /auth/login (password) or GET /auth/callback (OpenID Connect).
      if (method === "POST" && path === "/auth/login" && status !== 400 && status !== 404 && status !== 415)
        signIns.inc({ method: "password", outcome: status === 200 ? "ok" : "refused" });
      if (method === "GET" && path === "/auth/callback")
        signIns.inc({ method: "oidc", outcome: status === 302 ? "ok" : "refused" });
    },
  };
}
