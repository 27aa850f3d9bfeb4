// A real browser (Debian's chromium through playwright-core) signed in to the proxy, then sent
// to a page on a sibling origin (same host, another port: same site, so SameSite=Lax still
// sends the session cookie). That page tries what a forger would; the API behind the proxy is
// a recording upstream, and must see none of it. The proxy's own page doing the same through
// fetch (as the UI does) must get through.

import { join } from "node:path";
import bcrypt from "bcryptjs";
import { startUpstream, type Upstream } from "@baton/testkit";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ProxyProcess, requireBuilt, startProxy, tempFiles } from "./support/proxy-process.js";

vi.setConfig({ testTimeout: 60_000 });

const CHROMIUM = process.env.BATON_TEST_CHROMIUM || "/usr/bin/chromium";
let api: Upstream;
let sibling: Upstream;
let proxy: ProxyProcess;
let browser: Browser;

beforeAll(async () => {
  requireBuilt();
  api = await startUpstream();
  const dir = tempFiles({ "index.html": "<!doctype html><title>proxy ui</title><p>ui</p>" });
  const config = join(dir, "proxy.yaml");
  const { writeFileSync } = await import("node:fs");
  writeFileSync(
    config,
    `server: ${api.url}
login: { passwords: [{ email: ann@example.com, hash: "${bcrypt.hashSync("ann-pw", 4)}" }] }
token: { secret: "${"s".repeat(40)}" }
users: { ann@example.com: [admin] }
`,
  );
  proxy = await startProxy(["--config", config], { BATON_PROXY_UI_DIR: dir });
  const target = `${proxy.url}/api/instances/i1/cancel`;
  // The forger's pages, on 127.0.0.1 like the proxy but on another port.
  sibling = await startUpstream((request, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    if (request.path === "/form")
      res.end(`<!doctype html><form id="f" method="post" action="${target}"></form>
<script>document.getElementById("f").submit()</script>`);
    else if (request.path === "/form-with-field")
      res.end(`<!doctype html><form id="f" method="post" action="${target}"><input name="reason" value="x"></form>
<script>document.getElementById("f").submit()</script>`);
    else res.end("<!doctype html><title>sibling</title>");
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

async function signedInPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(proxy.url);
  const status = await page.evaluate(async () => {
    const res = await fetch("/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ann@example.com", password: "ann-pw" }),
    });
    return res.status;
  });
  expect(status).toBe(200);
  return { context, page };
}

const cancels = () => api.requests.filter((r) => r.path === "/api/instances/i1/cancel").length;

describe("a signed-in browser sent to a sibling origin", () => {
  it("lets the proxy's own page cancel through fetch (the UI's way)", async () => {
    const { context, page } = await signedInPage();
    const before = cancels();
    const status = await page.evaluate(
      async () => (await fetch("/api/instances/i1/cancel", { method: "POST" })).status,
    );
    expect(status).toBe(200);
    expect(cancels()).toBe(before + 1);
    expect(api.requests.at(-1)!.headers.authorization, "with the minted JWT").toMatch(/^Bearer ey/);
    await context.close();
  });

  it("does not let an auto-submitted form post, empty or with a field, reach the API", async () => {
    const { context, page } = await signedInPage();
    const before = cancels();
    for (const path of ["/form", "/form-with-field"]) {
      const answered = page.waitForResponse((res) => res.url().endsWith("/api/instances/i1/cancel"));
      await page.goto(`${sibling.url}${path}`);
      const res = await answered;
      expect(res.status(), path).toBe(415);
    }
    expect(cancels(), "the API saw no cancel").toBe(before);
    await context.close();
  });

  it("does not let the sibling page's fetch (no-cors, credentials included) reach the API", async () => {
    const { context, page } = await signedInPage();
    const before = cancels();
    await page.goto(`${sibling.url}/`);
    await page.evaluate(async (url) => {
      // The refusal's answer is itself withheld from the page (Cross-Origin-Resource-Policy), so the fetch may reject.
      await fetch(url, { method: "POST", mode: "no-cors", credentials: "include" }).catch(() => undefined);
      await fetch(url, { method: "DELETE", mode: "no-cors", credentials: "include" }).catch(() => undefined);
    }, `${proxy.url}/api/instances/i1/cancel`);
    expect(cancels(), "the API saw no cancel").toBe(before);
    await context.close();
  });
});
