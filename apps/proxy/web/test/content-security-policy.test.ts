// The UI through the real baton-proxy (no config, on loopback, in front of a real baton-api),
// in Debian's chromium: every page the proxy sends carries a Content-Security-Policy without
// inline script and with frame-ancestors 'none' (docs/proxy.md "Browser hardening"). The UI's
// pages must run under it without a single violation, and a page on a sibling origin (same
// host, another port) must not be able to frame any of them (clickjacking).

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BatonClient, createClient, type DefinitionInput } from "@baton/actions";
import { spawnListening, startServer, startUpstream, type TestServer, type Upstream } from "@baton/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ORDER_V1 } from "./fixtures.js";
import { eventually, launchBrowser, WEB_ROOT } from "./harness.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const PROXY_MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));
let api: TestServer | undefined;
let proxy: Awaited<ReturnType<typeof spawnListening>> | undefined;
let sibling: Upstream | undefined;
let browser: Browser | undefined;
let client: BatonClient;
let instanceId: string;

beforeAll(async () => {
  api = await startServer({ args: ["--poll", "0"] });
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    BATON_PROXY_UI_DIR: join(WEB_ROOT, "dist"),
  };
  delete env.BATON_PROXY_CONFIG;
  delete env.BATON_SERVER;
  proxy = await spawnListening("baton-proxy", PROXY_MAIN, ["--server", api.url, "--http", "127.0.0.1:0"], env, 20_000);
  // The framing page: 127.0.0.1 like the proxy, another port (a sibling origin of the same site).
  sibling = await startUpstream((request, res) => {
    const src = `${proxy!.url}${decodeURIComponent(request.path.replace(/^\/frame\?src=/, ""))}`;
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><title>sibling</title><iframe id="victim" src="${src}" width="800" height="600"></iframe>`);
  });
  browser = await launchBrowser();
  client = createClient({ server: api.url });
  await client.call("putDefinition", { body: ORDER_V1 as unknown as DefinitionInput });
  const started = await client.call("startInstance", { body: { process: "order", input: { item: "anvil" } } });
  instanceId = (started as { id: string }).id;
});

afterAll(async () => {
  await browser?.close();
  await sibling?.close();
  await proxy?.terminate();
  await api?.stop();
});

/** A page that records every CSP violation its documents report, and the console's CSP errors. */
async function watchedPage(): Promise<{ page: Page; violations: () => Promise<string[]> }> {
  const page = await browser!.newPage();
  page.setDefaultTimeout(10_000);
  const consoleErrors: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) consoleErrors.push(message.text());
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (e) =>
      seen.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`),
    );
  });
  return {
    page,
    violations: async () => [
      ...consoleErrors,
      ...(await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations ?? [])),
    ],
  };
}

describe("the UI under the proxy's Content-Security-Policy", () => {
  it("sends the policy, X-Frame-Options, nosniff and Referrer-Policy with the UI's page and files", async () => {
    const page = await fetch(`${proxy!.url}/`);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toContain("unsafe-inline");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await page.text();
    expect(html, "the built index.html has no inline script").not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html, "nor inline style").not.toMatch(/<style|\sstyle=/);
  });

  it("runs every page of the UI, and the API explorer, without a violation", async () => {
    const { page, violations } = await watchedPage();
    const pages: [string, string][] = [
      ["/#/instances", "order"],
      [`/#/instances/${instanceId}`, "approve"],
      ["/#/definitions", "order"],
      ["/#/definitions/order", "order"],
      ["/#/definitions/order/1", "prepare"],
      ["/#/definitions/order/compare?from=1&to=1", "order"],
      ["/#/external", "External tasks waiting"],
      ["/#/channels", "Channels"],
      ["/#/tokens", "Tokens"],
    ];
    for (const [path, text] of pages) {
      await page.goto(`${proxy!.url}${path}`);
      await page
        .getByText(text)
        .filter({ visible: true })
        .first()
        .waitFor()
        .catch((e) => {
          throw new Error(`${path}: ${e}`);
        });
      expect(await violations(), path).toEqual([]);
    }
    await page.goto(`${proxy!.url}/public/docs/`);
    await page.locator(".swagger-ui .info").first().waitFor();
    expect(await violations(), "/public/docs/").toEqual([]);
    await page.close();
  });
});

describe("a page on a sibling origin", () => {
  it("cannot frame the UI, one of its routes, the API explorer or a proxy answer", async () => {
    for (const path of ["/", "/#/instances", `/#/instances/${instanceId}`, "/public/docs/", "/auth/session"]) {
      const page = await browser!.newPage();
      await page.goto(`${sibling!.url}/frame?src=${encodeURIComponent(path)}`);
      const frame = await eventually(`the frame of ${path} has settled`, async () => {
        const f = page.frames().find((x) => x !== page.mainFrame());
        return f && f.url() !== "about:blank" ? f : undefined;
      });
      await page.waitForLoadState("load");
      // A blocked frame shows the browser's own error document, never the proxy's content.
      expect(frame.url(), path).not.toContain(proxy!.url);
      const content = await frame.content().catch(() => "");
      expect(content, path).not.toContain('id="root"');
      expect(content, path).not.toContain("swagger-ui");
      await page.close();
    }
  });
});
