import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Logger } from "@baton/log";
import { BcryptBusy } from "./bcrypt-worker.js";
import { clientAddress, type TrustedProxies } from "./client-address.js";
import type { Oidc, OidcTransaction } from "./oidc.js";
import { SignInError } from "./oidc.js";
import { callbackUrl, safeReturnPath } from "./request-origin.js";
import { apiError, htmlPage } from "./responses.js";
import { seal, unseal } from "./sealed-cookie.js";
import { sessionView } from "./session-view.js";
import type { SessionCookie } from "./session-cookie.js";
import type { SignIn } from "./sign-in.js";

export const OIDC_COOKIE = "baton_oidc";

function throttledSentence(reason: "account" | "address" | "concurrent", seconds: number): string {
  if (reason === "concurrent") return "another sign-in from your address is still being checked; try again in a second";
  const whose = reason === "account" ? "for this email" : "from your address";
  return `too many failed sign-ins ${whose}; try again in ${seconds} s (each further failure doubles the wait, up to password_throttle.max_delay)`;
}
const OIDC_COOKIE_PATH = "/auth/callback";
const OIDC_TRANSACTION_MS = 10 * 60_000;
const OIDC_PURPOSE = "oidc";

export interface AuthRouteSettings {
  /** The session cookie's name and flags (`secure_cookie`, the request scheme). */
  cookie: SessionCookie;
  redirectUrl?: string;
  now: () => number;
  log: Logger;
  /** `trusted_proxies` (client-address.ts). */
  trustedProxies: TrustedProxies;
  /** `trace_url`, handed to the UI in the session view. */
  traceUrl?: string;
}

/** `/auth/*`: the session for the UI, password and OpenID Connect sign-in, logout. Mounted at `/auth`. */
export function authRoutes(signIn: SignIn | null, settings: AuthRouteSettings): Hono {
  const { cookie: sessionCookie, trustedProxies } = settings;
  const cookieFlags = sessionCookie.flags;
  const currentUser = (c: Context) => signIn?.resolve(sessionCookie.read(c)) ?? Promise.resolve(null);
  const startSession = async (c: Context, identity: { subject: string; groups: string[]; via: string }) => {
    const { signedIn, cookie } = await signIn!.start(identity);
    setCookie(c, sessionCookie.name(c), cookie, {
      ...cookieFlags(c),
      maxAge: Math.floor(signIn!.sessionTtlMs / 1000),
    });
    return signedIn;
  };
  const auth = new Hono();
  auth.use("*", async (c, next) => {
    await next();
    c.header("cache-control", "no-store");
  });
  auth.use(
    "*",
    bodyLimit({
      maxSize: 64 * 1024,
      onError: (c) => c.json(apiError("invalid", "the request body is larger than 64 KiB"), 413),
    }),
  );

  auth.get("/session", async (c) => c.json(sessionView(signIn, await currentUser(c), settings.traceUrl)));

  auth.post("/login", async (c) => {
    if (!signIn?.passwordLogin)
      return c.json(apiError("not_found", "password sign-in is not configured on this proxy (login.passwords)"), 404);
    // A cross-site HTML form cannot send application/json without a CORS preflight (which
    // this proxy never answers), so requiring it stops another site signing a browser in.
    if (!/^application\/json\b/i.test(c.req.header("content-type") ?? "")) {
      return c.json(apiError("invalid", "send the credentials as Content-Type: application/json"), 415);
    }
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(apiError("invalid", 'the body must be JSON: {"email": "...", "password": "..."}'), 400);
    }
    const { email, password } = (body ?? {}) as Record<string, unknown>;
    if (typeof email !== "string" || email === "" || typeof password !== "string" || password === "") {
      return c.json(
        apiError("invalid", 'the body must be {"email": "...", "password": "..."} with both non-empty strings'),
        400,
      );
    }
    const address = clientAddress(c, trustedProxies);
    const admitted = signIn.throttle.admit(email, address);
    if (!admitted.ok) {
      const seconds = Math.max(1, Math.ceil(admitted.retryAfterMs / 1000));
      settings.log.info("sign-in throttled", { via: "password", reason: admitted.reason, address });
      c.header("retry-after", String(seconds));
      return c.json(apiError("unavailable", throttledSentence(admitted.reason, seconds)), 429);
    }
    let entry: Awaited<ReturnType<typeof signIn.checkPassword>>;
    try {
      entry = await signIn.checkPassword(email, password);
    } catch (error) {
      if (!(error instanceof BcryptBusy)) throw error;
      c.header("retry-after", "1");
      return c.json(
        apiError("unavailable", "too many sign-ins are being checked right now; try again in a second"),
        503,
      );
    } finally {
      admitted.release();
    }
    if (!entry) {
      signIn.throttle.failed(email, address);
      // No email in the log: people type passwords into the email field.
      settings.log.info("sign-in refused", { via: "password", reason: "wrong email or password", address });
      return c.json(apiError("unauthenticated", "wrong email or password"), 401);
    }
    signIn.throttle.succeeded(email);
    const who = await startSession(c, { subject: entry.email, groups: entry.groups, via: "password" });
    return c.json(sessionView(signIn, who, settings.traceUrl));
  });

  auth.post("/logout", async (c) => {
    const who = await currentUser(c);
    if (who) signIn!.signOut(who);
    deleteCookie(c, sessionCookie.name(c), cookieFlags(c));
    return c.json(sessionView(signIn, null, settings.traceUrl));
  });

  auth.get("/login/:provider", async (c) => {
    const provider = signIn?.providers.get(c.req.param("provider"));
    if (!signIn || !provider) {
      return c.html(
        htmlPage(
          "Unknown sign-in provider",
          `There is no provider "${c.req.param("provider")}" in this proxy's login.providers.`,
        ),
        404,
      );
    }
    let begun: Awaited<ReturnType<Oidc["begin"]>>;
    try {
      begun = await signIn.oidc.begin(
        provider,
        callbackUrl(c, settings.redirectUrl, trustedProxies),
        safeReturnPath(c.req.query("return_to")),
      );
    } catch (error) {
      return c.html(
        htmlPage(
          "Sign-in unavailable",
          error instanceof SignInError ? error.message : `sign-in with ${provider.name} is unavailable`,
        ),
        502,
      );
    }
    const sealed = await seal(
      { tx: begun.transaction },
      signIn.cookieKey,
      settings.now() + OIDC_TRANSACTION_MS,
      OIDC_PURPOSE,
    );
    setCookie(c, OIDC_COOKIE, sealed, { ...cookieFlags(c, OIDC_COOKIE_PATH), maxAge: OIDC_TRANSACTION_MS / 1000 });
    return c.redirect(begun.url.href, 302);
  });

  auth.get("/callback", async (c) => {
    if (!signIn) return c.html(htmlPage("Sign-in is not configured", "This proxy has no login.providers."), 404);
    const raw = getCookie(c, OIDC_COOKIE);
    // The transaction is single-use whatever happens next.
    deleteCookie(c, OIDC_COOKIE, cookieFlags(c, OIDC_COOKIE_PATH));
    const sealed = raw ? await unseal(raw, signIn.cookieKey, settings.now(), OIDC_PURPOSE) : null;
    const tx = sealed?.tx as OidcTransaction | undefined;
    const provider = tx ? signIn.providers.get(tx.provider) : undefined;
    if (!tx || !provider) {
      return c.html(
        htmlPage(
          "Sign-in expired",
          "This sign-in was not started here, took longer than 10 minutes, or was already used. Start again.",
        ),
        400,
      );
    }
    const callback = new URL(callbackUrl(c, settings.redirectUrl, trustedProxies));
    callback.search = new URL(c.req.url).search;
    try {
      const identity = await signIn.oidc.finish(provider, callback, tx);
      await startSession(c, { ...identity, via: provider.id });
    } catch (error) {
      return c.html(
        htmlPage(
          "Sign-in failed",
          error instanceof SignInError ? error.message : `sign-in with ${provider.name} failed`,
        ),
        401,
      );
    }
    return c.redirect(safeReturnPath(tx.returnTo), 302);
  });

  auth.all("*", (c) => c.json(apiError("not_found", `no sign-in endpoint ${c.req.method} ${c.req.path}`), 404));
  return auth;
}
