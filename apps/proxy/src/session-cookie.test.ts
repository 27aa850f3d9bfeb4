import bcrypt from "bcryptjs";
import { createLogger } from "@baton/log";
import { startUpstream, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProxyApp } from "./app.js";
import { parseConfig } from "./config.js";
import { ancestorPaths, countCookies } from "./session-cookie.js";

const quiet = createLogger("error", () => {});
let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(() => upstream.close());

const HASHES = { ann: bcrypt.hashSync("ann-pw", 4), mal: bcrypt.hashSync("mal-pw", 4) };
function app(extra: string) {
  const config = parseConfig(`
server: ${upstream.url}
login:
  passwords:
    - { email: ann@example.com, hash: "${HASHES.ann}" }
    - { email: mal@example.com, hash: "${HASHES.mal}" }
token: { secret: "${"t".repeat(32)}" }
users: { ann@example.com: [admin], mal@example.com: [read] }
${extra}`);
  return createProxyApp({ config, server: config.server, uiDir: "/nonexistent", log: quiet });
}

async function cookieOf(proxy: ReturnType<typeof app>, who: "ann" | "mal"): Promise<string> {
  const res = await proxy.request("http://proxy.test/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `${who}@example.com`, password: `${who}-pw` }),
  });
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

const session = async (proxy: ReturnType<typeof app>, cookie: string) =>
  (await proxy.request("http://proxy.test/auth/session", { headers: { cookie } })).json() as Promise<{
    subject: string | null;
  }>;

describe("the session cookie over HTTPS (secure_cookie: true)", () => {
  it("is __Host-baton_session, and a plain baton_session planted beside it is not read", async () => {
    const proxy = app("secure_cookie: true");
    const ann = await cookieOf(proxy, "ann");
    expect(ann).toMatch(/^__Host-baton_session=/);
    const planted = (await cookieOf(proxy, "mal")).replace(/^__Host-/, "");
    expect((await session(proxy, `${planted}; ${ann}`)).subject).toBe("ann@example.com");
    expect((await session(proxy, planted)).subject, "alone, it is no session").toBeNull();
  });

  it("is refused twice over, and both copies are expired with Secure", async () => {
    const proxy = app("secure_cookie: true");
    const cookie = `${await cookieOf(proxy, "mal")}; ${await cookieOf(proxy, "ann")}`;
    const before = upstream.requests.length;
    const res = await proxy.request("http://proxy.test/api/instances", { headers: { cookie } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain(
      "the request carries the __Host-baton_session cookie 2 times",
    );
    expect(upstream.requests.length).toBe(before);
    expect(res.headers.getSetCookie()).toEqual([
      "__Host-baton_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure",
      "__Host-baton_session=; Path=/api; Max-Age=0; HttpOnly; SameSite=Lax; Secure",
      "__Host-baton_session=; Path=/api/; Max-Age=0; HttpOnly; SameSite=Lax; Secure",
      "__Host-baton_session=; Path=/api/instances; Max-Age=0; HttpOnly; SameSite=Lax; Secure",
    ]);
  });
});

describe("the session cookie over plain HTTP", () => {
  it("is refused when sent twice on any path, /auth/session and sign-in included", async () => {
    const proxy = app("");
    const cookie = `${await cookieOf(proxy, "mal")}; ${await cookieOf(proxy, "ann")}`;
    for (const path of ["/auth/session", "/api/instances", "/healthz", "/"]) {
      const res = await proxy.request(`http://proxy.test${path}`, { headers: { cookie } });
      expect(res.status, path).toBe(400);
    }
  });
});

describe("countCookies and ancestorPaths", () => {
  it("count each name=value pair of the name, and list every Path a cookie sent on a path can have", () => {
    expect(countCookies("a=1; baton_session=x; xbaton_session=y;baton_session=z", "baton_session")).toBe(2);
    expect(countCookies(undefined, "baton_session")).toBe(0);
    expect(ancestorPaths("/")).toEqual(["/"]);
    expect(ancestorPaths("/api/x/")).toEqual(["/", "/api", "/api/", "/api/x", "/api/x/"]);
    expect(ancestorPaths(`/${"a/".repeat(100)}`).length).toBe(32);
  });
});
