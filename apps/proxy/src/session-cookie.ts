import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { CookieOptions } from "hono/utils/cookie";
import type { TrustedProxies } from "./client-address.js";
import { requestScheme } from "./request-origin.js";
import { apiError } from "./responses.js";

/** The session cookie's name over plain HTTP. */
export const SESSION_COOKIE = "baton_session";
/**
 * Its name when it is Secure. Browsers accept a `__Host-` cookie only with Secure, Path=/ and
 * no Domain, and only from a secure origin, so no other host, subdomain or plain-HTTP page can
 * set one, and none can hide it behind a longer path.
 */
export const HOST_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** The most ancestor paths a refusal clears cookies at (see refuseDuplicateSessions). */
const MAX_CLEARED_PATHS = 32;

/** How the session cookie is named, flagged and read on one request (docs/proxy.md "Sessions"). */
export interface SessionCookie {
  /** `secure_cookie`, else whether the request came over https (X-Forwarded-Proto from a trusted proxy counts). */
  secure(c: Context): boolean;
  /** `__Host-baton_session` when Secure, else `baton_session`. */
  name(c: Context): string;
  /** The attributes it is set and deleted with. */
  flags(c: Context, path?: string): CookieOptions;
  /** The value of the one cookie of `name(c)` (a request with two never gets here: refuseDuplicates). */
  read(c: Context): string | undefined;
  /** Refuses (400) a request carrying the session cookie more than once, before anything reads it. */
  refuseDuplicates: MiddlewareHandler;
}

export function sessionCookie(options: { secureCookie?: boolean; trustedProxies: TrustedProxies }): SessionCookie {
  const secure = (c: Context) => options.secureCookie ?? requestScheme(c, options.trustedProxies) === "https";
  const name = (c: Context) => (secure(c) ? HOST_SESSION_COOKIE : SESSION_COOKIE);
  return {
    secure,
    name,
    flags: (c, path = "/") => ({ path, httpOnly: true, sameSite: "Lax", secure: secure(c) }),
    read: (c) => getCookie(c, name(c)),
    refuseDuplicates: async (c, next) => {
      const cookieName = name(c);
      const copies = countCookies(c.req.header("cookie"), cookieName);
      if (copies < 2) return next();
      // A page on another port of this host (cookies ignore ports) can add a second cookie of
      // this name with a longer Path, which the browser sends first. Neither can be told from
      // the other, so both are refused and expired at every path they can have been set for.
      const attributes = `Max-Age=0; HttpOnly; SameSite=Lax${secure(c) ? "; Secure" : ""}`;
      for (const path of ancestorPaths(c.req.path))
        c.header("set-cookie", `${cookieName}=; Path=${path}; ${attributes}`, { append: true });
      return c.json(
        apiError(
          "invalid",
          `the request carries the ${cookieName} cookie ${copies} times: another page on this host has set one of its own, so the proxy cannot tell which session is yours; both were cleared, sign in again (docs/proxy.md "Sessions")`,
        ),
        400,
      );
    },
  };
}

/** How many `name=` pairs a Cookie header has. */
export function countCookies(header: string | undefined, name: string): number {
  if (!header) return 0;
  let n = 0;
  for (const pair of header.split(";")) if (pair.trimStart().startsWith(`${name}=`)) n++;
  return n;
}

/** `/`, `/api`, `/api/`, `/api/x`, … up to the path itself: every Path a cookie sent with it can have. */
export function ancestorPaths(path: string): string[] {
  const paths = new Set<string>(["/"]);
  for (let i = path.indexOf("/", 1); i !== -1 && paths.size < MAX_CLEARED_PATHS - 1; i = path.indexOf("/", i + 1)) {
    paths.add(path.slice(0, i));
    paths.add(path.slice(0, i + 1));
  }
  if (paths.size < MAX_CLEARED_PATHS) paths.add(path);
  return [...paths];
}
