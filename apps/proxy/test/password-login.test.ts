import { writeFileSync } from "node:fs";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cookiePair, type ProxyProcess, requireBuilt, startProxy, tempFiles } from "./support/proxy-process.js";

// Real processes: the built baton-api (PGlite, a 3-15 s start on a busy 2-core box) and baton-proxy.
vi.setConfig({ testTimeout: 60_000 });

const SECRET = "e2e-shared-secret-of-at-least-32-characters";
const hash = (pw: string) => bcrypt.hashSync(pw, 4);

let dir: string;
let api: TestServer;
let proxy: ProxyProcess;

/** Writes a proxy config next to the shared secret file and returns its path. */
function writeConfig(name: string, extra = ""): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `
server: ${api.url}
login:
  passwords:
    - { email: ann@example.com, hash: "${hash("ann-pw")}", groups: [ops] }
    - { email: bob@example.com, hash: "${hash("bob-pw")}" }
    - { email: ada@example.com, hash: "${hash("ada-pw")}" }
token: { secret_file: jwt-secret, issuer: e2e-proxy, audience: e2e-api }
roles:
  ops: [read, operate]
users:
  bob@example.com: [worker]
  ada@example.com: [admin]
${extra}`,
  );
  return path;
}

async function signIn(url: string, email: string, password: string): Promise<string> {
  const res = await client(url).post("/auth/login", { email, password });
  expect(res.status, res.text).toBe(200);
  return cookiePair(res, "baton_session");
}

beforeAll(async () => {
  requireBuilt();
  dir = tempFiles({ "jwt-secret": `${SECRET}\n` });
  api = await startServer({
    args: [
      "--auth",
      "token",
      "--poll",
      "0",
      "--jwt-secret-file",
      join(dir, "jwt-secret"),
      "--jwt-issuer",
      "e2e-proxy",
      "--jwt-audience",
      "e2e-api",
    ],
  });
  proxy = await startProxy(["--config", writeConfig("proxy.yaml")]);
});

afterAll(async () => {
  await proxy?.stop();
  await api?.stop();
});

describe("password sign-in through the proxy to the real API", () => {
  it("refuses /api/* before sign-in with the API's 401 shape", async () => {
    const res = await client(proxy.url).get("/api/instances");
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("unauthenticated");
  });

  it("lets a signed-in person list instances with the permissions of their groups", async () => {
    const cookie = await signIn(proxy.url, "ann@example.com", "ann-pw");
    const session = await client(proxy.url, { cookie, origin: proxy.url }).get("/auth/session");
    expect(session.body).toMatchObject({
      signed_in: true,
      subject: "ann@example.com",
      permissions: ["read", "operate"],
    });
    const list = await client(proxy.url, { cookie, origin: proxy.url }).get("/api/instances");
    expect(list.status, list.text).toBe(200);
    expect(list.body.items).toEqual([]);
  });

  it("gets the API's 403 for what those permissions do not cover", async () => {
    const cookie = await signIn(proxy.url, "ann@example.com", "ann-pw");
    const res = await client(proxy.url, { cookie, origin: proxy.url }).put("/api/definitions", {
      name: "nope",
      tasks: [{ id: "done", output: { x: 1 } }],
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("forbidden");
    expect(res.body.error, "the API saw the permissions from the config").toContain(
      "(the credential has read, operate)",
    );
  });

  it("gives a user without read the API's 403 on GET /api/instances", async () => {
    const cookie = await signIn(proxy.url, "bob@example.com", "bob-pw");
    const res = await client(proxy.url, { cookie, origin: proxy.url }).get("/api/instances");
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("forbidden");
  });

  it("records the signed-in person as the actor of a change", async () => {
    const cookie = await signIn(proxy.url, "ada@example.com", "ada-pw");
    const api_ = client(proxy.url, { cookie, origin: proxy.url });
    expect(
      (await api_.put("/api/definitions", { name: "by-ada", tasks: [{ id: "done", output: { x: 1 } }] })).status,
    ).toBe(200);
    const list = await api_.get("/api/definitions");
    expect(list.body.items.find((d: any) => d.name === "by-ada")).toMatchObject({ actor: "ada@example.com" });
  });

  it("replaces an Authorization header the browser sends with the person's token", async () => {
    const cookie = await signIn(proxy.url, "bob@example.com", "bob-pw");
    const res = await client(proxy.url, { cookie, authorization: "Bearer svc_sk_not-a-real-token" }).get(
      "/api/instances",
    );
    expect(res.status, "bob's own JWT (worker) decides, not the header he sent").toBe(403);
  });

  it("refuses a wrong password and an unknown email alike", async () => {
    const wrong = await client(proxy.url).post("/auth/login", { email: "ann@example.com", password: "nope" });
    const unknown = await client(proxy.url).post("/auth/login", { email: "zed@example.com", password: "ann-pw" });
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
  });

  it("answers 401 after logout, even for a copy of the old cookie", async () => {
    const cookie = await signIn(proxy.url, "ann@example.com", "ann-pw");
    expect((await client(proxy.url, { cookie, origin: proxy.url }).get("/api/instances")).status).toBe(200);
    const out = await client(proxy.url, { cookie, origin: proxy.url }).post("/auth/logout");
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()[0]).toMatch(/^baton_session=; Max-Age=0/);
    expect((await client(proxy.url, { cookie, origin: proxy.url }).get("/api/instances")).status).toBe(401);
  });

  it("refuses a tampered cookie", async () => {
    const cookie = await signIn(proxy.url, "ann@example.com", "ann-pw");
    const [name, value] = cookie.split("=") as [string, string];
    const parts = value.split(".");
    parts[3] = (parts[3]![0] === "A" ? "B" : "A") + parts[3]!.slice(1);
    const res = await client(proxy.url, { cookie: `${name}=${parts.join(".")}` }).get("/api/instances");
    expect(res.status).toBe(401);
  });

  it("keeps sessions across a proxy restart (they are stateless)", async () => {
    const cookie = await signIn(proxy.url, "ann@example.com", "ann-pw");
    const second = await startProxy(["--config", join(dir, "proxy.yaml")]);
    try {
      expect((await client(second.url, { cookie }).get("/api/instances")).status).toBe(200);
    } finally {
      expect(await second.stop(), "SIGTERM is a clean exit").toBe(0);
    }
  });

  it("refuses a session after session_ttl", async () => {
    const short = await startProxy(["--config", writeConfig("short.yaml", "session_ttl: 2s")]);
    try {
      const cookie = await signIn(short.url, "ann@example.com", "ann-pw");
      expect((await client(short.url, { cookie }).get("/api/instances")).status).toBe(200);
      await new Promise((r) => setTimeout(r, 3_100));
      expect((await client(short.url, { cookie }).get("/api/instances")).status).toBe(401);
      expect((await client(short.url, { cookie }).get("/auth/session")).body.signed_in).toBe(false);
    } finally {
      await short.stop();
    }
  });

  it("never logs a password, cookie or token", () => {
    const log = proxy.stderr();
    expect(log).toContain('"msg":"signed in"');
    for (const secret of ["ann-pw", "bob-pw", SECRET, "svc_sk_", "eyJ"]) expect(log, secret).not.toContain(secret);
  });
});

describe("password guessing through the proxy", () => {
  it("refuses even the right password once an account's free failures are used, until the window passes", async () => {
    const guarded = await startProxy([
      "--config",
      writeConfig("throttled.yaml", "password_throttle: { account_failures: 3, max_delay: 2s }"),
    ]);
    try {
      const login = (password: string) =>
        client(guarded.url).post("/auth/login", { email: "ann@example.com", password });
      for (let i = 0; i < 4; i++) expect((await login(`guess-${i}`)).status).toBe(401);
      const refused = await login("ann-pw");
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(refused.body).toEqual({
        code: "unavailable",
        error:
          "too many failed sign-ins for this email; try again in 1 s (each further failure doubles the wait, up to password_throttle.max_delay)",
      });
      // Another person is not affected.
      expect(
        (await client(guarded.url).post("/auth/login", { email: "bob@example.com", password: "bob-pw" })).status,
      ).toBe(200);
      await new Promise((r) => setTimeout(r, 1_100));
      expect((await login("ann-pw")).status, "the real user gets in after the window").toBe(200);
    } finally {
      await guarded.stop();
    }
  });

  it("counts per client address through X-Forwarded-For only from trusted_proxies", async () => {
    const wrong = (url: string, client?: string) =>
      client_(url, client).post("/auth/login", { email: `someone-${Math.random()}@example.com`, password: "x" });
    const client_ = (url: string, forwardedFor?: string) =>
      client(url, forwardedFor ? { "x-forwarded-for": `${forwardedFor}, 10.9.9.9` } : {});
    const throttle = "password_throttle: { address_failures: 2, max_delay: 1m }";
    const behindLb = await startProxy([
      "--config",
      writeConfig("lb.yaml", `${throttle}\ntrusted_proxies: [127.0.0.1, 10.9.9.9]`),
    ]);
    const direct = await startProxy(["--config", writeConfig("direct.yaml", throttle)]);
    try {
      for (let i = 0; i < 3; i++) expect((await wrong(behindLb.url, "203.0.113.7")).status).toBe(401);
      expect((await wrong(behindLb.url, "203.0.113.7")).status, "that client's address is closed").toBe(429);
      expect((await wrong(behindLb.url, "198.51.100.1")).status, "another client behind the balancer is not").toBe(401);
      // A client cannot escape by writing its own X-Forwarded-For when the peer is not trusted.
      for (let i = 0; i < 3; i++) expect((await wrong(direct.url, `203.0.113.${i}`)).status).toBe(401);
      expect((await wrong(direct.url, "198.51.100.1")).status).toBe(429);
    } finally {
      await behindLb.stop();
      await direct.stop();
    }
  });

  it("answers a flood from one address mostly without bcrypt, and keeps answering others meanwhile", async () => {
    const guarded = await startProxy(["--config", writeConfig("flood.yaml")]);
    try {
      const flood = Array.from({ length: 60 }, (_, i) =>
        client(guarded.url).post("/auth/login", { email: `nobody${i}@example.com`, password: "x" }),
      );
      const session = await client(guarded.url).get("/auth/session");
      expect(session.status).toBe(200);
      const statuses = (await Promise.all(flood)).map((r) => r.status);
      const checked = statuses.filter((s) => s === 401).length;
      expect(
        statuses.filter((s) => s !== 401 && s !== 429),
        "only refusals",
      ).toEqual([]);
      // Two at a time per address, and 20 free failures before the address closes.
      expect(checked).toBeLessThanOrEqual(22);
      expect(statuses.filter((s) => s === 429).length).toBe(60 - checked);
    } finally {
      await guarded.stop();
    }
  });
});
