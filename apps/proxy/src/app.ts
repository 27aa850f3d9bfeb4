import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { ProviderConfig, ProxyConfig } from "./config.js";
import { forward, UpstreamUnreachable, type UpstreamAuthorization } from "./forward.js";
import { deriveKeys } from "./keys.js";
import type { Logger } from "./logger.js";
import { createOidc, type Oidc, type OidcTransaction, SignInError } from "./oidc.js";
import { createPasswordCheck } from "./password-login.js";
import { permissionsFor } from "./permissions.js";
import { seal, unseal } from "./sealed-cookie.js";
import { createSessions, SESSION_COOKIE, type Session } from "./sessions.js";
import { serveUi } from "./static-ui.js";
import { createTokenMinter } from "./token-minter.js";

export const OIDC_COOKIE = "baton_oidc";
const OIDC_COOKIE_PATH = "/auth/callback";
const OIDC_TRANSACTION_MS = 10 * 60_000;
const OIDC_PURPOSE = "oidc";

export interface ProxyAppOptions {
  /** The validated config file, or null for no-config mode (no login, requests pass as they are). */
  config: ProxyConfig | null;
  /** The API: `config.server`, or `--server` without a config. */
  server: string;
  uiDir: string;
  log: Logger;
  now?: () => number;
}

/** The body of `GET /auth/session`: a contract with the UI, do not reshape it. */
export interface SessionView {
  login: boolean;
  signed_in: boolean;
  subject: string | null;
  permissions: string[] | null;
  providers: { id: string; name: string }[];
  password_login: boolean;
}

interface SignedIn {
  session: Session;
  groups: string[];
  permissions: string[];
}

export function createProxyApp(options: ProxyAppOptions): Hono {
  const { config, log } = options;
  const now = options.now ?? Date.now;
  const server = new URL(options.server);
  const login = config?.login && config.token ? { ...config.login, token: config.token } : null;
  const keys = login ? deriveKeys(login.token.secret) : null;
  const sessions = keys ? createSessions({ key: keys.cookieKey, ttlMs: config!.sessionTtlMs, now }) : null;
  const minter = keys ? createTokenMinter({ key: keys.jwtSigningKey, issuer: login!.token.issuer, audience: login!.token.audience, ttlMs: login!.token.ttlMs }, now) : null;
  const checkPassword = createPasswordCheck(login?.passwords ?? []);
  const passwordsByEmail = new Map((login?.passwords ?? []).map((p) => [p.email.toLowerCase(), p]));
  const providers = new Map((login?.providers ?? []).map((p) => [p.id, p]));
  const oidc: Oidc = createOidc(log);

  /** The signed-in person, with groups and permissions from the config as it is now. */
  const signedIn = async (c: Context): Promise<SignedIn | null> => {
    if (!sessions || !config) return null;
    const session = await sessions.read(getCookie(c, SESSION_COOKIE));
    if (!session) return null;
    let groups: string[];
    if (session.via === "password") {
      // A person removed from login.passwords is signed out; groups follow the current config.
      const entry = passwordsByEmail.get(session.subject.toLowerCase());
      if (!entry) return null;
      groups = entry.groups;
    } else {
      if (!providers.has(session.via)) return null;
      groups = session.groups;
    }
    return { session, groups, permissions: permissionsFor({ subject: session.subject, groups }, config) };
  };

  const view = (who: SignedIn | null): SessionView => ({
    login: login !== null,
    signed_in: who !== null,
    subject: who?.session.subject ?? null,
    permissions: who?.permissions ?? null,
    providers: [...providers.values()].map((p) => ({ id: p.id, name: p.name })),
    password_login: (login?.passwords.length ?? 0) > 0,
  });

  const startSession = async (c: Context, identity: { subject: string; groups: string[]; via: string }) => {
    const { session, cookie } = await sessions!.issue(identity);
    setCookie(c, SESSION_COOKIE, cookie, {
      path: "/",
      httpOnly: true,
      sameSite: "Lax",
      secure: secureCookie(c),
      maxAge: Math.floor(sessions!.ttlMs / 1000),
    });
    log.info("signed in", { subject: session.subject, via: session.via });
    return session;
  };

  const secureCookie = (c: Context) => config?.secureCookie ?? requestScheme(c) === "https";
  const redirectUri = (c: Context) => redirectUriFrom(c, config?.redirectUrl);

  const app = new Hono();

  app.use("/auth/*", async (c, next) => {
    await next();
    c.header("cache-control", "no-store");
  });
  app.use("/auth/*", bodyLimit({ maxSize: 64 * 1024, onError: (c) => c.json(apiError("invalid", "the request body is larger than 64 KiB"), 413) }));

  app.get("/auth/session", async (c) => c.json(view(await signedIn(c))));

  app.post("/auth/login", async (c) => {
    if (!login || login.passwords.length === 0) return c.json(apiError("not_found", "password sign-in is not configured on this proxy (login.passwords)"), 404);
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
      return c.json(apiError("invalid", 'the body must be {"email": "...", "password": "..."} with both non-empty strings'), 400);
    }
    const entry = await checkPassword(email, password);
    if (!entry) {
      log.info("sign-in refused", { via: "password", reason: "wrong email or password" });
      return c.json(apiError("unauthenticated", "wrong email or password"), 401);
    }
    const session = await startSession(c, { subject: entry.email, groups: [], via: "password" });
    return c.json(view({ session, groups: entry.groups, permissions: permissionsFor({ subject: entry.email, groups: entry.groups }, config!) }));
  });

  app.post("/auth/logout", async (c) => {
    const who = await signedIn(c);
    if (who) {
      sessions!.revoke(who.session);
      minter!.forget(who.session.id);
      log.info("signed out", { subject: who.session.subject });
    }
    deleteCookie(c, SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "Lax", secure: secureCookie(c) });
    return c.json(view(null));
  });

  app.get("/auth/login/:provider", async (c) => {
    const provider = providers.get(c.req.param("provider"));
    if (!provider || !keys) return c.html(page("Unknown sign-in provider", `There is no provider "${c.req.param("provider")}" in this proxy's login.providers.`), 404);
    const returnTo = safeReturnPath(c.req.query("return_to"));
    let begun: Awaited<ReturnType<Oidc["begin"]>>;
    try {
      begun = await oidc.begin(provider, redirectUri(c), returnTo);
    } catch (error) {
      return c.html(page("Sign-in unavailable", signInMessage(error, provider)), 502);
    }
    const sealed = await seal({ tx: begun.transaction }, keys.cookieKey, now() + OIDC_TRANSACTION_MS, OIDC_PURPOSE);
    setCookie(c, OIDC_COOKIE, sealed, { path: OIDC_COOKIE_PATH, httpOnly: true, sameSite: "Lax", secure: secureCookie(c), maxAge: OIDC_TRANSACTION_MS / 1000 });
    return c.redirect(begun.url.href, 302);
  });

  app.get("/auth/callback", async (c) => {
    if (!keys) return c.html(page("Sign-in is not configured", "This proxy has no login.providers."), 404);
    const raw = getCookie(c, OIDC_COOKIE);
    deleteCookie(c, OIDC_COOKIE, { path: OIDC_COOKIE_PATH, httpOnly: true, sameSite: "Lax", secure: secureCookie(c) });
    const sealed = raw ? await unseal(raw, keys.cookieKey, now(), OIDC_PURPOSE) : null;
    const tx = sealed?.tx as OidcTransaction | undefined;
    const provider = tx ? providers.get(tx.provider) : undefined;
    if (!tx || !provider) {
      return c.html(page("Sign-in expired", "This sign-in was not started here, took longer than 10 minutes, or was already used. Start again."), 400);
    }
    const redirect = redirectUri(c);
    const callbackUrl = new URL(redirect);
    callbackUrl.search = new URL(c.req.url).search;
    try {
      const identity = await oidc.finish(provider, callbackUrl, tx);
      await startSession(c, { ...identity, via: provider.id });
    } catch (error) {
      return c.html(page("Sign-in failed", signInMessage(error, provider)), 401);
    }
    return c.redirect(safeReturnPath(tx.returnTo), 302);
  });

  app.all("/auth/*", (c) => c.json(apiError("not_found", `no sign-in endpoint ${c.req.method} ${c.req.path}`), 404));

  const proxied = async (c: Context) => {
    let auth: UpstreamAuthorization = { kind: "pass-through" };
    let subject: string | undefined;
    if (login) {
      const who = await signedIn(c);
      if (who) {
        subject = who.session.subject;
        auth = { kind: "bearer", token: await minter!.tokenFor(who.session.id, who.session.subject, who.permissions) };
      } else if (c.req.path === "/api" || c.req.path.startsWith("/api/")) {
        return c.json(apiError("unauthenticated", "sign in first: this request carries no valid session cookie (POST /auth/login or GET /auth/login/<provider>)"), 401);
      } else {
        auth = { kind: "none" };
      }
    }
    const started = now();
    try {
      const res = await forward(c.req.raw, server, auth);
      log.debug("proxied", { method: c.req.method, path: c.req.path, status: res.status, ms: now() - started, subject });
      return res;
    } catch (error) {
      if (!(error instanceof UpstreamUnreachable)) throw error;
      log.warn("API unreachable", { server: error.server, reason: error.reason, path: c.req.path });
      return c.json(apiError("unavailable", error.message), 502);
    }
  };
  app.all("/api", proxied);
  app.all("/api/*", proxied);
  app.all("/public/*", proxied);
  app.all("/healthz", proxied);

  app.on(["GET", "HEAD"], "*", (c) => serveUi(options.uiDir, c.req.path, c.req.method));
  app.all("*", (c) => c.json(apiError("not_found", `nothing at ${c.req.method} ${c.req.path}`), 404));

  app.onError((error, c) => {
    log.error("request failed", { method: c.req.method, path: c.req.path, error: error.message });
    return c.json(apiError("internal", "the sign-in proxy failed to handle this request; see its log"), 500);
  });
  return app;
}

function apiError(code: string, error: string) {
  return { code, error };
}

/** `https` when the request came over TLS or a TLS-terminating proxy says so in X-Forwarded-Proto. */
function requestScheme(c: Context): string {
  const forwarded = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  if (forwarded === "https" || forwarded === "http") return forwarded;
  return new URL(c.req.url).protocol.replace(":", "");
}

function redirectUriFrom(c: Context, configured: string | undefined): string {
  if (configured) return configured;
  const host = c.req.header("x-forwarded-host")?.split(",")[0]?.trim() || new URL(c.req.url).host;
  return `${requestScheme(c)}://${host}/auth/callback`;
}

/** Only a path on this proxy: never another origin (`//evil`, `/\evil`, `https://…`). */
export function safeReturnPath(value: string | undefined): string {
  if (!value?.startsWith("/") || value.startsWith("//") || value.includes("\\") || /[\u0000-\u001f]/.test(value)) return "/";
  return value;
}

function signInMessage(error: unknown, provider: ProviderConfig): string {
  return error instanceof SignInError ? error.message : `sign-in with ${provider.name} failed`;
}

function page(title: string, message: string): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · Baton</title></head>
<body><h1>${esc(title)}</h1><p>${esc(message)}</p><p><a href="/">Back to Baton</a></p></body></html>
`;
}
