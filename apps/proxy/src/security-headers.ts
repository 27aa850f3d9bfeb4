import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/**
 * The Content-Security-Policy of every response (docs/proxy.md "Browser hardening"). The UI is
 * Vite's output: one module script and one stylesheet from /assets, no inline script or style,
 * a `data:` favicon; its calls go to its own origin. Nothing may frame a page of the proxy.
 */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", "data:"],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/**
 * Browser hardening on every response the proxy sends, its own and the API's it forwards
 * (replacing what the API said): the CSP above, `X-Frame-Options: DENY` for browsers without
 * frame-ancestors, `nosniff`, `Referrer-Policy: no-referrer`, and hono's other defaults
 * (Cross-Origin-Opener-Policy and -Resource-Policy same-origin). No Strict-Transport-Security:
 * whether a host name is HTTPS-only is the TLS terminator's decision, not the proxy's.
 */
export function browserHardening(): MiddlewareHandler {
  return secureHeaders({
    contentSecurityPolicy: CONTENT_SECURITY_POLICY,
    xFrameOptions: "DENY",
    referrerPolicy: "no-referrer",
    strictTransportSecurity: false,
  });
}
