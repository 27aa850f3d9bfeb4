import type { Context, MiddlewareHandler } from "hono";
import type { TrustedProxies } from "./client-address.js";
import { isLoopbackHost } from "./listen-address.js";
import { requestOrigin } from "./request-origin.js";
import { apiError } from "./responses.js";
import type { SessionCookie } from "./session-cookie.js";

/**
 * The header a script may send instead of `Origin`/`Sec-Fetch-Site` to show it is not an HTML
 * form: a page on another origin cannot add it without a CORS preflight, which this proxy never
 * grants. Any value.
 */
export const REQUEST_HEADER = "x-baton-request";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
// The content types an HTML form (or a "simple" cross-origin fetch) can send without a preflight.
const FORM_TYPES = /^\s*(?:application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)\b/i;

/**
 * Cross-site request forgery guard for every state-changing request (docs/proxy.md "Requests
 * from other origins"). SameSite=Lax keeps the cookie off cross-site requests only; a page on a
 * sibling origin of the same site (another port, another subdomain) still sends it. So:
 * - a form content type is refused (415), with or without a body: the API takes JSON;
 * - a browser that says where the request comes from must say this proxy's own origin —
 *   `Sec-Fetch-Site: same-origin`, else an `Origin` equal to the proxy's (requestOrigin, or
 *   `redirect_url`'s);
 * - a request carrying the session cookie and neither header needs `X-Baton-Request`.
 * A request with none of these and no session cookie (the CLI or curl with its own token, no
 * login) passes: it carries no ambient credential.
 */
export function crossOriginGuard(settings: {
  redirectUrl: string | undefined;
  cookie: SessionCookie;
  trustedProxies: TrustedProxies;
}): MiddlewareHandler {
  const configuredOrigin = settings.redirectUrl ? new URL(settings.redirectUrl).origin : undefined;
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return next();
    const refusal = refusalOf(c, configuredOrigin, settings);
    if (refusal) return c.json(apiError(refusal.code, refusal.reason), refusal.status);
    return next();
  };
}

function refusalOf(
  c: Context,
  configuredOrigin: string | undefined,
  settings: { cookie: SessionCookie; trustedProxies: TrustedProxies },
): { status: 403 | 415; code: string; reason: string } | undefined {
  const type = c.req.header("content-type");
  if (type !== undefined && FORM_TYPES.test(type)) {
    return {
      status: 415,
      code: "invalid",
      reason: `${c.req.method} ${c.req.path} with content-type "${type.split(";")[0]!.trim()}" is refused: this proxy takes JSON, so an HTML form on another page cannot act for you`,
    };
  }
  const fetchSite = c.req.header("sec-fetch-site")?.trim().toLowerCase();
  if (fetchSite !== undefined) {
    if (fetchSite === "same-origin") return undefined;
    return forbidden(c, `the browser says it comes from another origin (Sec-Fetch-Site: ${fetchSite})`);
  }
  const origin = c.req.header("origin")?.trim();
  if (origin !== undefined) {
    if (origin === requestOrigin(c, settings.trustedProxies) || origin === configuredOrigin) return undefined;
    return forbidden(c, `it comes from the page origin ${JSON.stringify(origin)}, not this proxy's`);
  }
  if (settings.cookie.read(c) === undefined || c.req.header(REQUEST_HEADER) !== undefined) return undefined;
  return forbidden(c, "it carries the session cookie but neither Origin, Sec-Fetch-Site nor X-Baton-Request");
}

/** Refuses (403) a request whose Host is not a loopback name or address (see ProxyAppOptions.loopbackHostsOnly). */
export const loopbackHostGuard: MiddlewareHandler = async (c, next) => {
  const hostname = new URL(c.req.url).hostname.replace(/^\[(.*)\]$/, "$1");
  if (isLoopbackHost(hostname)) return next();
  return c.json(
    apiError(
      "forbidden",
      `Host "${hostname}" is not this machine: a proxy without login listening on loopback answers only localhost, 127.x and [::1] (docs/proxy.md)`,
    ),
    403,
  );
};

function forbidden(c: Context, why: string) {
  return {
    status: 403 as const,
    code: "forbidden",
    reason: `${c.req.method} ${c.req.path} is refused: ${why}; state-changing requests through this proxy must come from its own pages (docs/proxy.md)`,
  };
}
