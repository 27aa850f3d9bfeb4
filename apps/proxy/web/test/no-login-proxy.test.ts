// baton-proxy started without a config in front of an API that requires credentials
// (`--auth token`): nobody can sign in through it, and the UI must say so and why instead of
// offering an empty sign-in page ("No sign-in method is configured").

import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { spawnListening, startServer, type TestServer } from "@baton/testkit";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { launchBrowser, WEB_ROOT } from "./harness.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const PROXY_MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));
let api: TestServer | undefined;
let proxy: Awaited<ReturnType<typeof spawnListening>> | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  api = await startServer({ args: ["--auth", "token", "--poll", "0"] });
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    BATON_PROXY_UI_DIR: join(WEB_ROOT, "dist"),
  };
  delete env.BATON_PROXY_CONFIG;
  delete env.BATON_SERVER;
  proxy = await spawnListening("baton-proxy", PROXY_MAIN, ["--server", api.url, "--http", "127.0.0.1:0"], env, 20_000);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await proxy?.terminate();
  await api?.stop();
});

describe("the UI through a proxy without a config, in front of an API that requires credentials", () => {
  it("names the cause: no sign-in in front of an API that wants credentials", async () => {
    const page = await browser!.newPage();
    await page.goto(`${proxy!.url}/#/instances`);
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      "The API requires credentials, but no sign-in is configured in front of it: baton-proxy was started without a config",
    );
    expect(await page.getByText("No sign-in method is configured on this proxy.").count()).toBe(0);
  });

  it("answers /favicon.ico with an icon, not 404 (browsers and bookmarks ask for it by that name)", async () => {
    const res = await fetch(`${proxy!.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/x-icon");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 4)], "an ICO header").toEqual([0, 0, 1, 0]);
  });
});
