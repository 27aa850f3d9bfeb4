import type { Context } from "hono";

/**
 * `https` when the request came over TLS or a TLS-terminating proxy in front says so in
 * X-Forwarded-Proto (first value), else `http`.
 */
export function requestScheme(c: Context): "http" | "https" {
  const forwarded = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  if (forwarded === "https" || forwarded === "http") return forwarded;
  return new URL(c.req.url).protocol === "https:" ? "https" : "http";
}

/** `redirect_url` when configured, else `/auth/callback` on the origin the browser used (X-Forwarded-Host, else Host). */
export function callbackUrl(c: Context, configured: string | undefined): string {
  if (configured) return configured;
  const host = c.req.header("x-forwarded-host")?.split(",")[0]?.trim() || new URL(c.req.url).host;
  return `${requestScheme(c)}://${host}/auth/callback`;
}

/** Only a path on this proxy: never another origin (`//evil`, `/\evil`, `https://…`) or a control character. */
export function safeReturnPath(value: string | undefined): string {
  if (!value?.startsWith("/") || value.startsWith("//") || value.includes("\\") || /[\u0000-\u001f]/.test(value)) return "/";
  return value;
}
