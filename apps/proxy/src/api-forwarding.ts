import type { Context } from "hono";
import { forward, UpstreamUnreachable, type UpstreamAuthorization } from "./forward.js";
import type { Logger } from "@baton/log";
import { apiError } from "./responses.js";
import type { SessionCookie } from "./session-cookie.js";
import type { SignIn } from "./sign-in.js";

/**
 * The handler for `/api/*`, `/public/*` and `/healthz`. With a login, a signed-in person's
 * request carries a minted JWT, `/api/*` without a session is refused here (401 in the API's
 * shape), and the rest goes with no Authorization. Without a login, Authorization passes as is.
 */
export function apiForwarding(
  signIn: SignIn | null,
  cookie: SessionCookie,
  server: URL,
  log: Logger,
  now: () => number,
) {
  return async (c: Context) => {
    let auth: UpstreamAuthorization = { kind: "pass-through" };
    let subject: string | undefined;
    if (signIn) {
      const who = await signIn.resolve(cookie.read(c));
      if (who) {
        subject = who.session.subject;
        auth = { kind: "bearer", token: await signIn.tokenFor(who) };
      } else if (c.req.path === "/api" || c.req.path.startsWith("/api/")) {
        return c.json(
          apiError(
            "unauthenticated",
            "sign in first: this request carries no valid session cookie (POST /auth/login or GET /auth/login/<provider>)",
          ),
          401,
        );
      } else {
        auth = { kind: "none" };
      }
    }
    const started = now();
    try {
      const res = await forward(c.req.raw, server, auth);
      log.debug("proxied", {
        method: c.req.method,
        path: c.req.path,
        status: res.status,
        ms: now() - started,
        subject,
      });
      return res;
    } catch (error) {
      if (!(error instanceof UpstreamUnreachable)) throw error;
      log.warn("API unreachable", { server: error.server, reason: error.reason, path: c.req.path });
      return c.json(apiError("unavailable", error.message), 502);
    }
  };
}
