import type { Context } from "hono";
import { fromTrustedProxy, type TrustedProxies } from "./client-address.js";

/**
 * `https` when the request came over TLS or a TLS-terminating proxy listed in
 * `trusted_proxies` says so in X-Forwarded-Proto (first value), else `http`. From any other
 * peer the header is the client's own word and is ignored.
 */
export function requestScheme(c: Context, trustedProxies: TrustedProxies): "http" | "https" {
  if (fromTrustedProxy(c, trustedProxies)) {
    const forwarded = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
    if (forwarded === "https" || forwarded === "http") return forwarded;
  }
  return new URL(c.req.url).protocol === "https:" ? "https" : "http";
}

/** The origin the browser used: the scheme above and X-Forwarded-Host (from a trusted proxy only), else Host. */
export function requestOrigin(c: Context, trustedProxies: TrustedProxies): string {
  const forwarded = fromTrustedProxy(c, trustedProxies)
    ? c.req.header("x-forwarded-host")?.split(",")[0]?.trim()
    : undefined;
  return `${requestScheme(c, trustedProxies)}://${forwarded || new URL(c.req.url).host}`;
}

/** `redirect_url` when configured, else `/auth/callback` on the origin the browser used. */
export function callbackUrl(c: Context, configured: string | undefined, trustedProxies: TrustedProxies): string {
  return configured ?? `${requestOrigin(c, trustedProxies)}/auth/callback`;
}

/** The longest `return_to` kept: it travels in the sealed sign-in cookie, which must stay under the browsers' 4 KB. */
export const MAX_RETURN_PATH = 2048;

const RETURN_BASE = "http://return-to.invalid";

/**
 * Where to send the browser after an OpenID Connect sign-in: only a path on this proxy, with
 * its query and fragment (the UI's `/#/instances/<id>` routes live in the fragment). Anything
 * that could leave the proxy (`https://…`, `//evil`, `/\evil`, a path that normalises to
 * `//evil`) or is malformed (a control character, longer than MAX_RETURN_PATH) becomes `/`.
 * The answer is the URL parser's serialisation, so what goes into the Location header is
 * percent-encoded ASCII.
 */
export function safeReturnPath(value: string | undefined): string {
  if (
    !value?.startsWith("/") ||
    value.length > MAX_RETURN_PATH ||
    value.startsWith("//") ||
    value.includes("\\") ||
    /[\u0000-\u001f\u007f]/.test(value)
  )
    return "/";
  let url: URL;
  try {
    url = new URL(value, RETURN_BASE);
  } catch {
    return "/";
  }
  if (url.origin !== RETURN_BASE) return "/";
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (path.startsWith("//") || path.length > MAX_RETURN_PATH) return "/";
  return path;
}
