import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type FakeOpenIdProvider, startFakeOpenIdProvider } from "./support/fake-openid-provider.js";
import { cookiePair, type ProxyProcess, requireBuilt, startProxy, tempFiles } from "./support/proxy-process.js";

vi.setConfig({ testTimeout: 60_000 });

const SECRET = "oidc-e2e-shared-secret-32-characters-long";

let op: FakeOpenIdProvider;
let api: TestServer;
let proxy: ProxyProcess;

const get = (url: string, cookie?: string) => fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });

/** Runs the browser's part of the code flow; returns the callback's response and the oidc cookie used. */
async function signInFlow(
  returnTo = "/instances",
  provider = "fake",
): Promise<{ callback: Response; authorize: URL; oidcCookie: string; callbackUrl: string }> {
  const start = await get(`${proxy.url}/auth/login/${provider}?return_to=${encodeURIComponent(returnTo)}`);
  expect(start.status, await start.clone().text()).toBe(302);
  const authorize = new URL(start.headers.get("location")!);
  const oidcCookie = cookiePair(start, "baton_oidc");
  const atProvider = await get(authorize.href);
  expect(atProvider.status).toBe(302);
  const callbackUrl = atProvider.headers.get("location")!;
  const callback = await get(callbackUrl, oidcCookie);
  return { callback, authorize, oidcCookie, callbackUrl };
}

beforeAll(async () => {
  requireBuilt();
  op = await startFakeOpenIdProvider();
  const dir = tempFiles({ "jwt-secret": SECRET });
  api = await startServer({
    args: [
      "--auth",
      "token",
      "--poll",
      "0",
      "--jwt-secret-file",
      join(dir, "jwt-secret"),
      "--jwt-issuer",
      "baton-proxy",
      "--jwt-audience",
      "baton-api",
    ],
  });
  writeFileSync(
    join(dir, "proxy.yaml"),
    `server: ${api.url}
login:
  providers:
    - id: fake
      name: Fake IdP
      issuer: ${op.issuer}
      client_id: ${op.clientId}
      client_secret: ${op.clientSecret}
    - id: alt
      issuer: ${op.issuer}
      discovery_url: ${op.issuer}/.well-known/openid-configuration
      jwks_url: ${op.issuer}/jwks-other
      client_id: ${op.clientId}
      client_secret: ${op.clientSecret}
      subject_claim: sub
token: { secret_file: jwt-secret }
roles:
  engineers: [read, operate]
users:
  carol@example.com: [deploy]
`,
  );
  proxy = await startProxy(["--config", join(dir, "proxy.yaml")]);
});

afterAll(async () => {
  await proxy?.stop();
  await api?.stop();
  await op?.close();
});

beforeEach(() => {
  op.tamper = {};
  op.user = {
    sub: "u-carol",
    claims: { email: "carol@example.com", email_verified: true, groups: ["engineers", "other"] },
  };
});

describe("OpenID Connect sign-in", () => {
  it("lists the provider for the UI", async () => {
    const res = await client(proxy.url).get("/auth/session");
    expect(res.body).toEqual({
      login: true,
      signed_in: false,
      subject: null,
      permissions: null,
      scopes: null,
      providers: [
        { id: "fake", name: "Fake IdP" },
        { id: "alt", name: "alt" },
      ],
      password_login: false,
      trace_url: null,
    });
  });

  it("redirects to the provider with PKCE (S256), state, nonce, the scopes and the derived redirect_uri", async () => {
    const start = await get(`${proxy.url}/auth/login/fake`);
    expect(start.status).toBe(302);
    const q = new URL(start.headers.get("location")!).searchParams;
    expect(new URL(start.headers.get("location")!).origin + new URL(start.headers.get("location")!).pathname).toBe(
      `${op.issuer}/authorize`,
    );
    expect(q.get("response_type")).toBe("code");
    expect(q.get("client_id")).toBe(op.clientId);
    expect(q.get("redirect_uri")).toBe(`${proxy.url}/auth/callback`);
    expect(q.get("scope")).toBe("openid email profile groups");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("state")).toBeTruthy();
    expect(q.get("nonce")).toBeTruthy();
    const setCookie = start.headers.getSetCookie().find((c) => c.startsWith("baton_oidc="))!;
    expect(setCookie).toMatch(/; Max-Age=600; Path=\/auth\/callback; HttpOnly; SameSite=Lax$/);
  });

  it("completes the code flow, maps groups to roles and reaches the API", async () => {
    const { callback } = await signInFlow("/instances?status=failed");
    expect(callback.status, await callback.clone().text()).toBe(302);
    expect(callback.headers.get("location")).toBe("/instances?status=failed");
    expect(op.tokenExchanges.at(-1)).toEqual({ pkceVerified: true, ok: true });
    const cookie = cookiePair(callback, "baton_session");
    const session = await client(proxy.url, { cookie, origin: proxy.url }).get("/auth/session");
    expect(session.body).toMatchObject({
      signed_in: true,
      subject: "carol@example.com",
      permissions: ["deploy", "read", "operate"],
    });
    const list = await client(proxy.url, { cookie, origin: proxy.url }).get("/api/instances");
    expect(list.status, list.text).toBe(200);
    const deploy = await client(proxy.url, { cookie, origin: proxy.url }).put("/api/definitions", {
      name: "by-carol",
      tasks: [{ id: "done", output: { x: 1 } }],
    });
    expect(deploy.status, deploy.text).toBe(200);
    const defs = await client(proxy.url, { cookie, origin: proxy.url }).get("/api/definitions");
    expect(defs.body.items.find((d: any) => d.name === "by-carol")).toMatchObject({ actor: "carol@example.com" });
  });

  it("sends the browser back to the UI's hash route it started from (the deep link survives the provider round trip)", async () => {
    const { callback } = await signInFlow("/#/instances/0190-abc?status=failed");
    expect(callback.status, await callback.clone().text()).toBe(302);
    expect(
      callback.headers.get("location"),
      "the UI routes with the fragment, so it must reach the Location header whole",
    ).toBe("/#/instances/0190-abc?status=failed");
    expect(
      callback.headers.getSetCookie().some((c) => c.startsWith("baton_session=")),
      "and the person is signed in",
    ).toBe(true);
  });

  it("sends every off-site or malformed return_to to / instead (no open redirect)", async () => {
    const cases = [
      "https://evil.example/#/instances",
      "//evil.example/#/instances",
      "/\\evil.example",
      "/.//evil.example",
      "instances",
      `/#/${"a".repeat(3000)}`,
    ];
    for (const returnTo of cases) {
      const { callback } = await signInFlow(returnTo);
      expect(callback.status, await callback.clone().text()).toBe(302);
      expect(
        callback.headers.get("location"),
        `return_to=${JSON.stringify(returnTo.slice(0, 40))} must not send a signed-in browser anywhere but this proxy`,
      ).toBe("/");
    }
  });

  it("gives a person whose groups map to no role the API's 403", async () => {
    op.user = { sub: "u-dan", claims: { email: "dan@example.com", groups: ["visitors"] } };
    const { callback } = await signInFlow();
    const cookie = cookiePair(callback, "baton_session");
    expect((await client(proxy.url, { cookie, origin: proxy.url }).get("/auth/session")).body.permissions).toEqual([]);
    expect((await client(proxy.url, { cookie, origin: proxy.url }).get("/api/instances")).status).toBe(403);
  });

  it("refuses a callback whose state does not match", async () => {
    const start = await get(`${proxy.url}/auth/login/fake`);
    const oidcCookie = cookiePair(start, "baton_oidc");
    const atProvider = await get(start.headers.get("location")!);
    const back = new URL(atProvider.headers.get("location")!);
    back.searchParams.set("state", "forged-state");
    const callback = await get(back.href, oidcCookie);
    expect(callback.status).toBe(401);
    expect(callback.headers.getSetCookie().some((c) => c.startsWith("baton_session="))).toBe(false);
  });

  it("refuses an id_token with another nonce", async () => {
    op.tamper = { nonce: "replayed-nonce" };
    const { callback } = await signInFlow();
    expect(callback.status).toBe(401);
    expect(await callback.text()).toContain("Sign-in failed");
  });

  it("refuses an id_token signed with a key not in the provider's JWKS", async () => {
    op.tamper = { wrongKey: true };
    const { callback } = await signInFlow();
    expect(callback.status).toBe(401);
  });

  it("refuses a callback without the transaction cookie, and a replayed one", async () => {
    const start = await get(`${proxy.url}/auth/login/fake`);
    const oidcCookie = cookiePair(start, "baton_oidc");
    const atProvider = await get(start.headers.get("location")!);
    const callbackUrl = atProvider.headers.get("location")!;
    expect((await get(callbackUrl)).status, "started in another browser").toBe(400);
    const first = await get(callbackUrl, oidcCookie);
    expect(first.status).toBe(302);
    const replay = await get(callbackUrl, oidcCookie);
    expect(replay.status, "the code was used once already").toBe(401);
    expect(op.tokenExchanges.at(-1)!.error).toBe("invalid_grant");
  });

  it("refuses an id_token without the subject claim", async () => {
    op.user = { sub: "u-eve", claims: { groups: ["engineers"] } };
    const { callback } = await signInFlow();
    expect(callback.status).toBe(401);
    expect(await callback.text()).toContain("the id_token has no email claim");
  });

  it("uses discovery_url, jwks_url and subject_claim when given", async () => {
    op.tamper = { wrongKey: true };
    const { callback } = await signInFlow("/", "alt");
    expect(callback.status, "the id_token is signed with the key jwks_url serves").toBe(302);
    const cookie = cookiePair(callback, "baton_session");
    expect((await client(proxy.url, { cookie, origin: proxy.url }).get("/auth/session")).body).toMatchObject({
      subject: "u-carol",
      permissions: ["read", "operate"],
    });
    op.tamper = {};
    expect((await signInFlow("/", "alt")).callback.status, "the discovered JWKS is not used").toBe(401);
  });

  it("never logs the client secret, codes or cookies", () => {
    const log = proxy.stderr();
    expect(log).toContain('"msg":"signed in"');
    for (const secret of [op.clientSecret, SECRET, "eyJ", "code="]) expect(log, secret).not.toContain(secret);
  });

  it("sends an unknown provider id a 404", async () => {
    expect((await get(`${proxy.url}/auth/login/nope`)).status).toBe(404);
  });
});
