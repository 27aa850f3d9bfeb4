// Cookie tossing (docs/proxy.md "Sessions"): cookies ignore ports, so a page on another port of
// the proxy's host can set a `baton_session` cookie of its own — its author's session — with a
// longer Path. The browser then sends both on /api/*, the planted one first, and before this
// guard every API call ran as the page's author while the UI still showed the victim signed in.
// Real chromium, the built proxy over plain HTTP on 127.0.0.1, a recording upstream as the API.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { decodeJwt } from "jose";
import { client, json, startUpstream, type Upstream } from "@baton/testkit";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cookiePair, type ProxyProcess, requireBuilt, startProxy, tempFiles } from "./support/proxy-process.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const CHROMIUM = process.env.BATON_TEST_CHROMIUM || "/usr/bin/chromium";
let api: Upstream;
let sibling: Upstream;
let proxy: ProxyProcess;
let browser: Browser;
let mallorysCookie: string; // the value of the attacker's own session cookie

beforeAll(async () => {
  requireBuilt();
  api = await startUpstream((r, res) => json(res, 200, { path: r.path }));
  const dir = tempFiles({ "index.html": "<!doctype html><title>proxy ui</title><p>ui</p>" });
  writeFileSync(
    join(dir, "proxy.yaml"),
    `server: ${api.url}
login:
  passwords:
    - { email: ann@example.com, hash: "${bcrypt.hashSync("ann-pw", 4)}" }
    - { email: mallory@example.com, hash: "${bcrypt.hashSync("mallory-pw", 4)}" }
token: { secret: "${"s".repeat(40)}" }
users: { ann@example.com: [admin], mallory@example.com: [read] }
`,
  );
  proxy = await startProxy(["--config", join(dir, "proxy.yaml")], { BATON_PROXY_UI_DIR: dir });
  const login = await client(proxy.url).post("/auth/login", { email: "mallory@example.com", password: "mallory-pw" });
  mallorysCookie = cookiePair(login, "baton_session").replace(/^baton_session=/, "");
  // Mallory's site, on 127.0.0.1 like the proxy but another port: it plants her cookie, from
  // its server (which may replace even an HttpOnly cookie) or from a script.
  sibling = await startUpstream((request, res) => {
    const query = new URL(request.path, "http://x").searchParams;
    const cookie = `baton_session=${mallorysCookie}; path=${query.get("path") ?? "/"}`;
    const headers: Record<string, string> = { "content-type": "text/html" };
    if (query.get("by") === "server") headers["set-cookie"] = `${cookie}; HttpOnly; SameSite=Lax`;
    res.writeHead(200, headers);
    res.end(`<!doctype html><title>sibling</title>
${query.get("by") === "script" ? `<script>document.cookie = "${cookie}";</script>` : ""}<p>planted</p>`);
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
});

afterAll(async () => {
  await browser?.close();
  await proxy?.stop();
  await sibling?.close();
  await api?.close();
});

/** Ann signed in on the proxy's page, as the UI signs in (fetch from its own origin). */
async function annsPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(proxy.url);
  const status = await page.evaluate(
    async () =>
      (
        await fetch("/auth/login", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "ann@example.com", password: "ann-pw" }),
        })
      ).status,
  );
  expect(status).toBe(200);
  return { context, page };
}

/** The page's own GET of `path` through the proxy: status and body. */
const get = (page: import("playwright-core").Page, path: string) =>
  page.evaluate(async (p) => {
    const res = await fetch(p);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }, path);

/** The subjects of the JWTs the API received since `from`. */
const subjectsSince = (from: number) =>
  api.requests.slice(from).map((r) => decodeJwt(r.headers.authorization!.replace(/^Bearer /, "")).sub);

describe("a sibling origin planting its own session cookie with a longer path", () => {
  for (const [path, by] of [
    ["/api", "script"],
    ["/api", "server"],
    ["/api/", "server"],
    ["/api/instances", "script"],
  ]) {
    it(`cannot make Ann's API calls run as its author (path=${path}, set by its ${by}): both cookies are refused and cleared`, async () => {
      const { context, page } = await annsPage();
      await page.goto(`${sibling.url}/plant?by=${by}&path=${encodeURIComponent(path!)}`);
      await page.getByText("planted").waitFor();
      const sessions = async () => (await context.cookies()).filter((c) => c.name === "baton_session");
      expect((await sessions()).length, "the browser holds both").toBe(2);

      await page.goto(proxy.url);
      const before = api.requests.length;
      const res = await get(page, "/api/instances");
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("invalid");
      expect(String(res.body.error)).toContain("the request carries the baton_session cookie 2 times");
      expect(subjectsSince(before), "the API was not called as anyone").toEqual([]);
      expect(await sessions(), "both were cleared: Ann signs in again").toEqual([]);
      expect((await get(page, "/auth/session")).body.signed_in).toBe(false);
      await context.close();
    });
  }

  it("replacing the cookie at Path=/ signs the browser in as its author, and then the UI and the API see the same person", async () => {
    const { context, page } = await annsPage();
    await page.goto(`${sibling.url}/plant?by=server&path=/`);
    await page.getByText("planted").waitFor();
    await page.goto(proxy.url);
    const shown = (await get(page, "/auth/session")).body.subject;
    const before = api.requests.length;
    expect((await get(page, "/api/instances")).status).toBe(200);
    expect(subjectsSince(before)).toEqual([shown]);
    expect(shown, "the header of the UI names Mallory, not Ann").toBe("mallory@example.com");
    await context.close();
  });
});
