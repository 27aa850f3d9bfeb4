import { Hono } from "hono";
import { apiForwarding } from "./api-forwarding.js";
import { authRoutes } from "./auth-routes.js";
import { parseTrustedProxy } from "./client-address.js";
import { crossOriginGuard, loopbackHostGuard } from "./cross-origin-guard.js";
import type { ProxyConfig } from "./config.js";
import type { Logger } from "@baton/log";
import { apiError } from "./responses.js";
import { createSignIn } from "./sign-in.js";
import { serveUi } from "./static-ui.js";
import { createProxyMetrics, type ProxyMetrics } from "./metrics.js";
import { browserHardening } from "./security-headers.js";
import { sessionCookie } from "./session-cookie.js";

export interface ProxyAppOptions {
  /** The validated config file, or null for no-config mode (no login, requests pass as they are). */
  config: ProxyConfig | null;
  /** The API: `config.server`, or `--server` without a config. */
  server: string;
  uiDir: string;
  log: Logger;
  now?: () => number;
  /**
   * Answer only requests whose Host names this machine (localhost, 127.x, [::1]): set for a
   * proxy without login listening on loopback, where a page on another site could otherwise
   * rebind its own name to 127.0.0.1 and use the API as a same-origin page (DNS rebinding).
   */
  loopbackHostsOnly?: boolean;
  /** Default: a fresh registry per app (tests build several apps in one process). */
  metrics?: ProxyMetrics;
}

/** The whole proxy as a Hono app: `/auth/*`, the forwarded API paths, then the UI. */
export function createProxyApp(options: ProxyAppOptions): Hono {
  const { config, log } = options;
  const now = options.now ?? Date.now;
  const signIn = createSignIn(config, { log, now });
  const trustedProxies = (config?.trustedProxies ?? []).map(parseTrustedProxy);
  const cookie = sessionCookie({ secureCookie: config?.secureCookie, trustedProxies });
  const app = new Hono();
  const metrics = options.metrics ?? createProxyMetrics();
  app.use(async (c, next) => {
    const began = performance.now();
    await next();
    metrics.request(c.req.method, c.req.path, c.res.status, (performance.now() - began) / 1000);
  });
  // Outside every other middleware, so refusals carry the headers too.
  app.use("*", browserHardening());
  if (options.loopbackHostsOnly) app.use("*", loopbackHostGuard);
  // The proxy's own metrics (docs/metrics.md); the API's are at the API's /metrics, not forwarded.
  app.get(
    "/metrics",
    async () =>
      new Response(await metrics.registry.metrics(), { headers: { "content-type": metrics.registry.contentType } }),
  );
  // Before every route: a forged cross-origin request must not reach sign-in or the API.
  app.use("*", crossOriginGuard({ redirectUrl: config?.redirectUrl, cookie, trustedProxies }));
  // Before anything reads the session: two session cookies mean one was planted (cookie tossing).
  app.use("*", cookie.refuseDuplicates);

  const settings: Parameters<typeof authRoutes>[1] = { now, log, cookie, trustedProxies };
  if (config?.redirectUrl !== undefined) settings.redirectUrl = config.redirectUrl;
  if (config?.traceUrl !== undefined) settings.traceUrl = config.traceUrl;
  app.route("/auth", authRoutes(signIn, settings));

  const forwarded = apiForwarding(signIn, cookie, new URL(options.server), log, now);
  app.all("/api", forwarded);
  app.all("/api/*", forwarded);
  app.all("/public/*", forwarded);
  app.all("/healthz", forwarded);

  app.on(["GET", "HEAD"], "*", (c) => serveUi(options.uiDir, c.req.path, c.req.method));
  app.all("*", (c) => c.json(apiError("not_found", `nothing at ${c.req.method} ${c.req.path}`), 404));

  app.onError((error, c) => {
    log.error("request failed", { method: c.req.method, path: c.req.path, error: error.message });
    return c.json(apiError("internal", "the sign-in proxy failed to handle this request; see its log"), 500);
  });
  return app;
}
