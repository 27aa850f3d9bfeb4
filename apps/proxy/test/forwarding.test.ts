import { writeFileSync } from "node:fs";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { jwtVerify } from "jose";
import { client, json, request, startUpstream, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cookiePair, type ProxyProcess, requireBuilt, startProxy, tempFiles } from "./support/proxy-process.js";

vi.setConfig({ testTimeout: 30_000 });

// A recording upstream stands in for the API: it shows exactly what the proxy sends.
let upstream: Upstream;
let dir: string;
const SECRET = "recording-upstream-secret-32-characters!";

beforeAll(async () => {
  requireBuilt();
  upstream = await startUpstream((r, res) => json(res, 200, { method: r.method, path: r.path, body: r.body }));
  dir = tempFiles({});
  writeFileSync(
    join(dir, "proxy.yaml"),
    `server: ${upstream.url}
login: { passwords: [{ email: ann@example.com, hash: "${bcrypt.hashSync("pw", 4)}", groups: [ops] }] }
token: { secret: "${SECRET}", issuer: iss-x, audience: aud-y, ttl: 10s }
roles: { ops: [read], "*": [worker] }
`,
  );
});

afterAll(() => upstream.close());

describe("with login", () => {
  let proxy: ProxyProcess;
  beforeAll(async () => {
    proxy = await startProxy(["--config", join(dir, "proxy.yaml")]);
  });
  afterAll(() => proxy.stop());

  it("never forwards cookies, and sends a freshly minted JWT instead of the browser's Authorization", async () => {
    const login = await client(proxy.url).post("/auth/login", { email: "ann@example.com", password: "pw" });
    const session = cookiePair(login, "baton_session");
    const res = await request(
      proxy.url,
      "POST",
      "/api/instances?limit=3",
      { a: 1 },
      { cookie: `${session}; other=1`, authorization: "Bearer svc_sk_mine", "x-baton-request": "1" },
    );
    expect(res.body).toEqual({ method: "POST", path: "/api/instances?limit=3", body: '{"a":1}' });
    const seen = upstream.requests.at(-1)!;
    expect(seen.headers.cookie, "cookies are the proxy's own").toBeUndefined();
    const jwt = seen.headers.authorization!.replace(/^Bearer /, "");
    const { payload, protectedHeader } = await jwtVerify(jwt, new TextEncoder().encode(SECRET), {
      issuer: "iss-x",
      audience: "aud-y",
    });
    expect(protectedHeader.alg).toBe("HS256");
    expect(payload.sub).toBe("ann@example.com");
    expect(payload.perms).toEqual(["read", "worker"]);
    expect(payload.exp! - payload.iat!).toBe(10);
  });

  it("reuses the session's token across requests in the first half of its life", async () => {
    const login = await client(proxy.url).post("/auth/login", { email: "ann@example.com", password: "pw" });
    const cookie = cookiePair(login, "baton_session");
    await client(proxy.url, { cookie }).get("/api/a");
    await client(proxy.url, { cookie }).get("/api/b");
    const [a, b] = upstream.requests.slice(-2).map((r) => r.headers.authorization);
    expect(b).toBe(a);
  });

  it("forwards /healthz and /public/* without a session and without Authorization or cookies", async () => {
    await client(proxy.url, { cookie: "x=1", authorization: "Bearer mine" }).get("/healthz");
    expect(upstream.requests.at(-1)).toMatchObject({ path: "/healthz" });
    expect(upstream.requests.at(-1)!.headers.authorization).toBeUndefined();
    expect(upstream.requests.at(-1)!.headers.cookie).toBeUndefined();
    await client(proxy.url).get("/public/openapi.json?x=1");
    expect(upstream.requests.at(-1)!.path).toBe("/public/openapi.json?x=1");
  });

  it("forwards HEAD and answers without a body", async () => {
    const res = await fetch(`${proxy.url}/healthz`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    expect(upstream.requests.at(-1)!.method).toBe("HEAD");
  });

  it("passes the upstream status and headers back, minus Set-Cookie", async () => {
    upstream.handle((_r, res) => {
      res.writeHead(418, { "content-type": "application/json", "x-upstream": "1", "set-cookie": "sneaky=1" });
      res.end('{"code":"teapot"}');
    });
    try {
      const res = await client(proxy.url).get("/healthz");
      expect(res.status).toBe(418);
      expect(res.headers.get("x-upstream")).toBe("1");
      expect(res.headers.get("set-cookie")).toBeNull();
    } finally {
      upstream.handle((r, res) => json(res, 200, { method: r.method, path: r.path, body: r.body }));
    }
  });
});

describe("without a config", () => {
  it("forwards Authorization as it arrives to --server, but still no cookies", async () => {
    const proxy = await startProxy(["--server", upstream.url]);
    try {
      const res = await client(proxy.url, { authorization: "Bearer svc_sk_abc", cookie: "a=b" }).delete(
        "/api/tokens/x",
      );
      expect(res.body).toMatchObject({ method: "DELETE", path: "/api/tokens/x" });
      expect(upstream.requests.at(-1)!.headers.authorization).toBe("Bearer svc_sk_abc");
      expect(upstream.requests.at(-1)!.headers.cookie).toBeUndefined();
      const session = await client(proxy.url).get("/auth/session");
      expect(session.body).toEqual({
        login: false,
        signed_in: false,
        subject: null,
        permissions: null,
        scopes: null,
        providers: [],
        password_login: false,
        trace_url: null,
      });
    } finally {
      await proxy.stop();
    }
  });

  it("takes the server from BATON_SERVER and the config from BATON_PROXY_CONFIG", async () => {
    const byEnv = await startProxy([], { BATON_SERVER: upstream.url });
    try {
      await client(byEnv.url).get("/healthz?from=env");
      expect(upstream.requests.at(-1)!.path).toBe("/healthz?from=env");
    } finally {
      await byEnv.stop();
    }
    const byConfig = await startProxy([], { BATON_PROXY_CONFIG: join(dir, "proxy.yaml") });
    try {
      expect((await client(byConfig.url).get("/auth/session")).body.login).toBe(true);
    } finally {
      await byConfig.stop();
    }
  });
});
