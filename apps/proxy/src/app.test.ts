import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstream, type Upstream } from "@baton/testkit";
import { createProxyApp } from "./app.js";
import { MAX_RETURN_PATH, safeReturnPath } from "./request-origin.js";
import { parseConfig } from "./config.js";
import { createLogger } from "@baton/log";
import { fromPeer } from "../test/support/peer.js";

const HASH = bcrypt.hashSync("pw-ann", 4);
const quiet = createLogger("error", () => {});

let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(() => upstream.close());

function loginApp(extra = "") {
  const config = parseConfig(`
server: ${upstream.url}
session_ttl: 2h
login:
  passwords: [{ email: ann@example.com, hash: "${HASH}", groups: [ops] }]
  providers: [{ id: corp, name: Corp SSO, issuer: "https://sso.example.com", client_id: c, client_secret: s }]
token: { secret: "${"t".repeat(32)}" }
roles: { ops: [read, operate] }
${extra}`);
  return createProxyApp({ config, server: config.server, uiDir: "/nonexistent", log: quiet });
}

async function signIn(app: ReturnType<typeof loginApp>, headers: Record<string, string> = {}, peer = "10.0.0.9") {
  return app.request(
    "http://proxy.test/auth/login",
    {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ email: "ann@example.com", password: "pw-ann" }),
    },
    fromPeer(peer),
  );
}

const cookieOf = (res: Response) => res.headers.get("set-cookie")!.split(";")[0]!;

describe("GET /auth/session", () => {
  it("says there is no login without a config", async () => {
    const app = createProxyApp({ config: null, server: upstream.url, uiDir: "/nonexistent", log: quiet });
    const res = await app.request("/auth/session");
    expect(await res.json()).toEqual({
      login: false,
      signed_in: false,
      subject: null,
      permissions: null,
      scopes: null,
      providers: [],
      password_login: false,
      trace_url: null,
    });
  });

  it("lists the sign-in choices when signed out, and the subject and permissions when signed in", async () => {
    const app = loginApp();
    const out = await app.request("/auth/session");
    expect(out.headers.get("cache-control")).toBe("no-store");
    expect(await out.json()).toEqual({
      login: true,
      signed_in: false,
      subject: null,
      permissions: null,
      scopes: null,
      providers: [{ id: "corp", name: "Corp SSO" }],
      password_login: true,
      trace_url: null,
    });
    const cookie = cookieOf(await signIn(app));
    const res = await app.request("/auth/session", { headers: { cookie } });
    expect(await res.json()).toEqual({
      login: true,
      signed_in: true,
      subject: "ann@example.com",
      permissions: ["read", "operate"],
      scopes: null,
      providers: [{ id: "corp", name: "Corp SSO" }],
      password_login: true,
      trace_url: null,
    });
  });
});

describe("trace_url", () => {
  it("hands the configured tracing tool's URL template to the UI in the session view", async () => {
    const config = parseConfig(`server: ${upstream.url}\ntrace_url: "https://jaeger.example/trace/{trace_id}"\n`);
    const app = createProxyApp({ config, server: upstream.url, uiDir: "/nonexistent", log: quiet });
    const res = await app.request("/auth/session");
    expect(((await res.json()) as { trace_url: string | null }).trace_url).toBe(
      "https://jaeger.example/trace/{trace_id}",
    );
  });

  it("refuses a template without {trace_id}, naming the key", () => {
    expect(() => parseConfig(`server: http://127.0.0.1:1\ntrace_url: "https://jaeger.example/trace/"\n`)).toThrow(
      /trace_url.*does not contain \{trace_id\}/,
    );
  });
});

describe("POST /auth/login", () => {
  it("sets an HttpOnly, SameSite=Lax session cookie for the session ttl, not Secure over plain http", async () => {
    const res = await signIn(loginApp());
    expect(res.status).toBe(200);
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^baton_session=[^;]+; Max-Age=7200; Path=\/; HttpOnly; SameSite=Lax$/);
  });

  it("marks the cookie Secure, named __Host-, when the request came over https (directly or per X-Forwarded-Proto of a trusted proxy)", async () => {
    const viaProxy = await signIn(loginApp("trusted_proxies: [10.0.0.9]"), { "x-forwarded-proto": "https" });
    expect(viaProxy.headers.get("set-cookie")).toMatch(
      /^__Host-baton_session=[^;]+; Max-Age=7200; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
    const direct = await loginApp().request("https://proxy.test/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ann@example.com", password: "pw-ann" }),
    });
    expect(direct.headers.get("set-cookie")).toContain("; Secure");
  });

  it("ignores X-Forwarded-Proto from a peer that is not in trusted_proxies", async () => {
    for (const extra of ["", "trusted_proxies: [10.0.0.1]"]) {
      const res = await signIn(loginApp(extra), { "x-forwarded-proto": "https" });
      expect(res.headers.get("set-cookie"), extra).toMatch(
        /^baton_session=[^;]+; Max-Age=7200; Path=\/; HttpOnly; SameSite=Lax$/,
      );
    }
  });

  it("follows secure_cookie over the request scheme", async () => {
    expect((await signIn(loginApp("secure_cookie: true"))).headers.get("set-cookie")).toContain("; Secure");
    expect(
      (await signIn(loginApp("secure_cookie: false"), { "x-forwarded-proto": "https" })).headers.get("set-cookie"),
    ).not.toContain("Secure");
  });

  it("gives the same 401 for an unknown email and a wrong password", async () => {
    const app = loginApp();
    const bad = async (email: string, password: string) => {
      const res = await app.request("/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password }),
      });
      expect(res.headers.get("set-cookie")).toBeNull();
      return { status: res.status, body: await res.json() };
    };
    const expected = { status: 401, body: { code: "unauthenticated", error: "wrong email or password" } };
    expect(await bad("ann@example.com", "nope")).toEqual(expected);
    expect(await bad("zoe@example.com", "pw-ann")).toEqual(expected);
  });

  it("refuses a body that is not {email, password}", async () => {
    const app = loginApp();
    const res = await app.request("/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).code).toBe("invalid");
    const res2 = await app.request("/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "a" }),
    });
    expect(await res2.json()).toEqual({
      code: "invalid",
      error: 'the body must be {"email": "...", "password": "..."} with both non-empty strings',
    });
  });

  it("accepts credentials only as JSON, so a cross-site form cannot sign a browser in", async () => {
    const res = await loginApp().request("/auth/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=ann%40example.com&password=pw-ann",
    });
    expect(res.status).toBe(415);
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("answers 404 when password login is not configured", async () => {
    const app = createProxyApp({ config: null, server: upstream.url, uiDir: "/nonexistent", log: quiet });
    const res = await app.request("/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(404);
  });
});

describe("POST /auth/logout", () => {
  it("clears the cookie and refuses the old one afterwards", async () => {
    const app = loginApp();
    const cookie = cookieOf(await signIn(app));
    const res = await app.request("/auth/logout", { method: "POST", headers: { cookie, origin: "http://localhost" } });
    expect(res.headers.get("set-cookie")).toMatch(/^baton_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax/);
    expect(((await res.json()) as any).signed_in).toBe(false);
    expect(((await (await app.request("/auth/session", { headers: { cookie } })).json()) as any).signed_in).toBe(false);
    expect((await app.request("/api/instances", { headers: { cookie } })).status).toBe(401);
  });
});

describe("proxying with login", () => {
  it("answers 401 in the API's error shape for /api/* without a session, without calling the API", async () => {
    const before = upstream.requests.length;
    const res = await loginApp().request("/api/instances", { headers: { authorization: "Bearer svc_sk_whatever" } });
    expect(res.status).toBe(401);
    const body = (await res.json()) as any;
    expect(body.code).toBe("unauthenticated");
    expect(body.error).toMatch(/^sign in first/);
    expect(upstream.requests.length).toBe(before);
  });

  it("forwards /healthz and /public/* without a session, with no Authorization", async () => {
    const app = loginApp();
    expect((await app.request("/healthz", { headers: { authorization: "Bearer mine" } })).status).toBe(200);
    expect(upstream.requests.at(-1)!.headers.authorization).toBeUndefined();
    expect((await app.request("/public/openapi.json")).status).toBe(200);
    expect(upstream.requests.at(-1)!.path).toBe("/public/openapi.json");
  });

  it("refuses a session of a password user no longer in the config", async () => {
    const config = parseConfig(
      `server: ${upstream.url}\nlogin: { passwords: [{ email: bob@example.com, hash: "${HASH}" }] }\ntoken: { secret: "${"t".repeat(32)}" }\n`,
    );
    const cookie = cookieOf(await signIn(loginApp()));
    const other = createProxyApp({ config, server: config.server, uiDir: "/nonexistent", log: quiet });
    expect(((await (await other.request("/auth/session", { headers: { cookie } })).json()) as any).signed_in).toBe(
      false,
    );
  });

  it("answers 502 unavailable when the API cannot be reached", async () => {
    const app = createProxyApp({ config: null, server: "http://127.0.0.1:1", uiDir: "/nonexistent", log: quiet });
    const res = await app.request("/api/instances");
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      code: "unavailable",
      error: "the API at http://127.0.0.1:1 cannot be reached (ECONNREFUSED)",
    });
  });
});

describe("GET /auth/login/<provider>", () => {
  it("answers 404 for an unknown provider", async () => {
    expect((await loginApp().request("/auth/login/nope")).status).toBe(404);
  });

  it("answers a 502 page naming the provider when its discovery fails", async () => {
    const config = parseConfig(`
server: ${upstream.url}
login: { providers: [{ id: down, name: Down SSO, issuer: "http://127.0.0.1:1", client_id: c, client_secret: s }] }
token: { secret: "${"t".repeat(32)}" }
`);
    const app = createProxyApp({ config, server: config.server, uiDir: "/nonexistent", log: quiet });
    const res = await app.request("/auth/login/down");
    expect(res.status).toBe(502);
    expect(await res.text()).toContain("sign-in with Down SSO is unavailable: its OpenID discovery failed");
    expect(res.headers.get("set-cookie")).toBeNull();
  });
});

describe("GET /auth/callback", () => {
  it("refuses a callback without the transaction cookie", async () => {
    const res = await loginApp().request("/auth/callback?code=x&state=y");
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("Sign-in expired");
  });
});

describe("unknown paths", () => {
  it("answers JSON 404 for unknown /auth paths and non-GET UI paths", async () => {
    const app = loginApp();
    expect((await app.request("/auth/whatever")).status).toBe(404);
    expect((await app.request("/somewhere", { method: "POST" })).status).toBe(404);
  });

  it("says the UI is not built at / when its folder is missing", async () => {
    const res = await loginApp().request("/");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("The web UI is not built");
  });
});

describe("safeReturnPath", () => {
  it("keeps paths on this proxy and turns everything else into /", () => {
    expect(safeReturnPath("/instances?status=failed")).toBe("/instances?status=failed");
    for (const bad of [
      undefined,
      "",
      "https://evil.example",
      "//evil.example",
      "/\\evil.example",
      "instances",
      "/a\nb",
    ])
      expect(safeReturnPath(bad), String(bad)).toBe("/");
  });

  it("keeps the UI's hash route, with its query, so an OIDC sign-in lands on the page it started from", () => {
    expect(safeReturnPath("/#/instances/0190-abc")).toBe("/#/instances/0190-abc");
    expect(safeReturnPath("/#/instances?status=failed&process=order")).toBe("/#/instances?status=failed&process=order");
    expect(safeReturnPath("/#/definitions/order/compare?from=1&to=2")).toBe("/#/definitions/order/compare?from=1&to=2");
  });

  it("refuses a path that leaves the proxy once normalised, or that the browser would read as another host", () => {
    for (const bad of [
      "/.//evil.example",
      "/..//evil.example",
      "/a/..//evil.example",
      "/\tevil",
      "/\u007fevil",
      "/x\\@evil.example",
      "///evil.example",
    ]) {
      expect(safeReturnPath(bad), `${JSON.stringify(bad)} must not become an open redirect`).toBe("/");
    }
  });

  it("percent-encodes what it keeps, so the Location header is ASCII", () => {
    expect(safeReturnPath("/#/instances?process=caf\u00e9 bar")).toBe("/#/instances?process=caf%C3%A9%20bar");
    expect(safeReturnPath("/\u4e2d")).toBe("/%E4%B8%AD");
    const kept = safeReturnPath("/#/instances?process=caf\u00e9");
    expect(safeReturnPath(kept), "normalising twice changes nothing (the callback checks the stored path again)").toBe(
      kept,
    );
  });

  it("drops a return path too long for the sealed sign-in cookie", () => {
    const longest = `/#/instances?process=${"a".repeat(MAX_RETURN_PATH - 21)}`;
    expect(longest).toHaveLength(MAX_RETURN_PATH);
    expect(safeReturnPath(longest)).toBe(longest);
    expect(safeReturnPath(`${longest}a`), "one character more would risk a cookie the browser drops").toBe("/");
    expect(
      safeReturnPath(`/#/${"\u4e2d".repeat(700)}`),
      "the limit holds after percent-encoding (9 characters per one here)",
    ).toBe("/");
  });
});
