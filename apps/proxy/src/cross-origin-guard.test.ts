import bcrypt from "bcryptjs";
import { createLogger } from "@baton/log";
import { startUpstream, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProxyApp } from "./app.js";
import { fromPeer } from "../test/support/peer.js";
import { parseConfig } from "./config.js";

const quiet = createLogger("error", () => {});
let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(() => upstream.close());

function app(extra = "") {
  const config = parseConfig(`
server: ${upstream.url}
login: { passwords: [{ email: ann@example.com, hash: "${bcrypt.hashSync("pw", 4)}" }] }
token: { secret: "${"t".repeat(32)}" }
users: { ann@example.com: [admin] }
${extra}`);
  return createProxyApp({ config, server: config.server, uiDir: "/nonexistent", log: quiet });
}

async function sessionCookie(proxy: ReturnType<typeof app>): Promise<string> {
  const res = await proxy.request("http://proxy.test/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json", origin: "http://proxy.test" },
    body: JSON.stringify({ email: "ann@example.com", password: "pw" }),
  });
  expect(res.status).toBe(200);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

const CANCEL = "http://proxy.test/api/instances/i1/cancel";

describe("state-changing requests carrying the session cookie", () => {
  it("reach the API from the proxy's own origin (Origin, Sec-Fetch-Site or X-Baton-Request)", async () => {
    const proxy = app();
    const cookie = await sessionCookie(proxy);
    for (const headers of <Record<string, string>[]>[
      { origin: "http://proxy.test" },
      { "sec-fetch-site": "same-origin", origin: "http://proxy.test" },
      { "sec-fetch-site": "same-origin" },
      { "x-baton-request": "1" },
    ]) {
      const before = upstream.requests.length;
      const res = await proxy.request(CANCEL, { method: "POST", headers: { cookie, ...headers } });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(upstream.requests.length).toBe(before + 1);
    }
  });

  it("take the proxy's origin from X-Forwarded-Proto and -Host only when the peer is in trusted_proxies", async () => {
    const forwarded = {
      origin: "https://baton.example.com",
      "x-forwarded-proto": "https",
      "x-forwarded-host": "baton.example.com",
    };
    const proxy = app("trusted_proxies: [10.0.0.5]");
    const cookie = (await sessionCookie(proxy)).replace(/^baton_session=/, "__Host-baton_session=");
    const send = (peer: string) =>
      proxy.request(CANCEL, { method: "POST", headers: { cookie, ...forwarded } }, fromPeer(peer));
    const before = upstream.requests.length;
    expect((await send("10.0.0.5")).status, "from the trusted balancer").toBe(200);
    expect(upstream.requests.length).toBe(before + 1);
    const refused = await send("10.0.0.6");
    expect(refused.status, "from any other peer the headers are the client's own word").toBe(403);
    expect(upstream.requests.length).toBe(before + 1);
  });

  it("are refused (403) from a sibling origin, a null origin or with no origin at all, before the API sees them", async () => {
    const proxy = app();
    const cookie = await sessionCookie(proxy);
    const sibling = "the browser says it comes from another origin (Sec-Fetch-Site: same-site)";
    const cases: [Record<string, string>, string][] = [
      [{ "sec-fetch-site": "same-site", origin: "http://proxy.test:8080" }, sibling],
      [
        { "sec-fetch-site": "cross-site" },
        "the browser says it comes from another origin (Sec-Fetch-Site: cross-site)",
      ],
      // A spoofed Origin does not outweigh what the browser itself says.
      [{ "sec-fetch-site": "same-site", origin: "http://proxy.test" }, sibling],
      [
        { origin: "http://proxy.test:8080" },
        'it comes from the page origin "http://proxy.test:8080", not this proxy\'s',
      ],
      [
        { origin: "http://other.proxy.test" },
        'it comes from the page origin "http://other.proxy.test", not this proxy\'s',
      ],
      [{ origin: "null" }, 'it comes from the page origin "null", not this proxy\'s'],
      [{}, "it carries the session cookie but neither Origin, Sec-Fetch-Site nor X-Baton-Request"],
    ];
    for (const [headers, why] of cases) {
      const before = upstream.requests.length;
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const res = await proxy.request(CANCEL, { method, headers: { cookie, ...headers } });
        expect(res.status, `${method} ${JSON.stringify(headers)}`).toBe(403);
        expect(await res.json()).toEqual({
          code: "forbidden",
          error: `${method} /api/instances/i1/cancel is refused: ${why}; state-changing requests through this proxy must come from its own pages (docs/proxy.md)`,
        });
      }
      expect(upstream.requests.length, "the API never saw them").toBe(before);
    }
  });

  it("refuses form posts, body-less ones included, whatever the origin", async () => {
    const proxy = app();
    const cookie = await sessionCookie(proxy);
    const before = upstream.requests.length;
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"]) {
      const res = await proxy.request(CANCEL, {
        method: "POST",
        headers: { cookie, origin: "http://proxy.test", "content-type": type },
      });
      expect(res.status).toBe(415);
      expect(((await res.json()) as { error: string }).error).toBe(
        `POST /api/instances/i1/cancel with content-type "${type.split(";")[0]}" is refused: this proxy takes JSON, so an HTML form on another page cannot act for you`,
      );
    }
    expect(upstream.requests.length).toBe(before);
  });

  it("accepts the origin of redirect_url behind a proxy that rewrites Host", async () => {
    const proxy = app("redirect_url: https://baton.example.com/auth/callback");
    const cookie = await sessionCookie(proxy);
    const ok = await proxy.request(CANCEL, {
      method: "POST",
      headers: { cookie, origin: "https://baton.example.com" },
    });
    expect(ok.status).toBe(200);
  });

  it("leaves reads alone, and lets a request without the cookie or any browser header pass (a script's own token)", async () => {
    const proxy = app();
    const cookie = await sessionCookie(proxy);
    expect((await proxy.request("http://proxy.test/api/instances", { headers: { cookie } })).status).toBe(200);
    const none = createProxyApp({ config: null, server: upstream.url, uiDir: "/nonexistent", log: quiet });
    const res = await none.request(CANCEL, { method: "POST", headers: { authorization: "Bearer svc_sk_x" } });
    expect(res.status).toBe(200);
  });

  it("refuses cross-origin browser requests without a config too (the proxy then forwards with no login)", async () => {
    const none = createProxyApp({ config: null, server: upstream.url, uiDir: "/nonexistent", log: quiet });
    const res = await none.request(CANCEL, { method: "POST", headers: { "sec-fetch-site": "same-site" } });
    expect(res.status).toBe(403);
  });

  it("answers only loopback Host names when asked to (no login on loopback: DNS rebinding)", async () => {
    const local = createProxyApp({
      config: null,
      server: upstream.url,
      uiDir: "/nonexistent",
      log: quiet,
      loopbackHostsOnly: true,
    });
    for (const host of ["127.0.0.1:8448", "localhost:8448", "[::1]:8448", "127.0.0.2"])
      expect((await local.request(`http://${host}/api/instances`)).status, host).toBe(200);
    const rebound = await local.request("http://attacker.example:8448/api/instances");
    expect(rebound.status).toBe(403);
    expect(await rebound.json()).toEqual({
      code: "forbidden",
      error:
        'Host "attacker.example" is not this machine: a proxy without login listening on loopback answers only localhost, 127.x and [::1] (docs/proxy.md)',
    });
  });

  it("refuses a cross-origin logout and login", async () => {
    const proxy = app();
    const cookie = await sessionCookie(proxy);
    const out = await proxy.request("http://proxy.test/auth/logout", {
      method: "POST",
      headers: { cookie, origin: "http://evil.test" },
    });
    expect(out.status).toBe(403);
    const session = await proxy.request("http://proxy.test/auth/session", { headers: { cookie } });
    expect(((await session.json()) as { signed_in: boolean }).signed_in, "still signed in").toBe(true);
  });
});
