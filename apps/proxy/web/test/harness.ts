// What every browser test file needs: a real baton-api on PGlite (or PostgreSQL when
// DATABASE_URL is set), the built UI served by Vite's preview server with `/api`, `/public`
// and `/healthz` proxied to it (and nothing at `/auth/*`, so the UI runs in "no login" mode),
// and one headless Debian chromium.

import { accessSync, constants, existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { type BatonClient, createClient } from "@baton/actions";
import { API_MAIN, startServer, type TestServer, until } from "@baton/testkit";
import { type Browser, chromium, type Page } from "playwright-core";
import { type PreviewServer, preview } from "vite";

export const WEB_ROOT = fileURLToPath(new URL("..", import.meta.url));

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

export const DEFAULT_CHROMIUM = "/usr/bin/chromium";

/**
 * The chromium binary the browser tests drive: `BATON_TEST_CHROMIUM` when set, else Debian's
 * at /usr/bin/chromium. A missing one fails the test run with one sentence saying what to
 * install; the tests are never skipped for it.
 */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env, fallback = DEFAULT_CHROMIUM): string {
  const override = env.BATON_TEST_CHROMIUM?.trim();
  const path = override || fallback;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(
      override
        ? `The UI browser tests need a chromium binary, and BATON_TEST_CHROMIUM names ${path}, which does not exist or is not executable (unset it to use Debian's chromium at ${fallback}: apt-get install chromium).`
        : `The UI browser tests need Debian's chromium at ${fallback} (apt-get install chromium), or another chromium binary named by BATON_TEST_CHROMIUM.`,
    );
  }
  return path;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
}

/** Serves the built `dist/` with the API routes proxied to `target`. */
export async function servePreview(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  if (!existsSync(`${WEB_ROOT}dist/index.html`))
    throw new Error(`${WEB_ROOT}dist/index.html is missing: build the UI first (turbo run build --filter=@baton/web)`);
  const server: PreviewServer = await preview({
    root: WEB_ROOT,
    configFile: false,
    logLevel: "silent",
    build: { outDir: "dist" },
    preview: {
      host: "127.0.0.1",
      port: 0,
      strictPort: true,
      proxy: { "/api": target, "/public": target, "/healthz": target },
    },
  });
  const address = server.httpServer.address() as AddressInfo;
  return { url: `http://127.0.0.1:${address.port}`, close: () => server.close() };
}

export interface Stack {
  api: TestServer;
  client: BatonClient;
  web: { url: string; close: () => Promise<void> };
  browser: Browser;
  page: Page;
  close: () => Promise<void>;
}

/** The api, the preview server and a browser with one page; `close` stops all three. */
/** `apiArgs`: extra flags of the API server (e.g. a lower `--limit-page-count`). */
export async function startStack(apiArgs: string[] = [], apiEnv?: Record<string, string>): Promise<Stack> {
  chromiumPath(); // before anything starts: a missing browser is the first thing to say
  if (!existsSync(API_MAIN))
    throw new Error(`${API_MAIN} is missing: build the api first (pnpm exec turbo run build --filter=@baton/api)`);
  const api = await startServer(
    apiArgs.length > 0 || apiEnv !== undefined ? { args: apiArgs, ...(apiEnv ? { env: apiEnv } : {}) } : undefined,
  );
  let web: Stack["web"] | undefined;
  let browser: Browser | undefined;
  try {
    web = await servePreview(api.url);
    browser = await launchBrowser();
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    const opened = { api, web, browser };
    return {
      ...opened,
      page,
      client: createClient({ server: api.url }),
      close: async () => {
        await opened.browser.close();
        await opened.web.close();
        await opened.api.stop();
      },
    };
  } catch (error) {
    await browser?.close();
    await web?.close();
    await api.stop();
    throw error;
  }
}

/**
 * The poll helper of @baton/testkit (`until`: a generous hang guard, 60 s by default) at the
 * pace these suites poll the server: every 100 ms, not to load a busy machine further.
 */
export const eventually = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs?: number): Promise<T> =>
  until(what, check, timeoutMs, 100);

/** The session of a proxy with a login and nobody signed in: a password form and one provider. */
/** The `data-instance` ids of a page's table rows, in order (the instance list, the tasklist). */
export const rowIds = (page: Page): Promise<string[]> =>
  page.locator("tbody tr[data-instance]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-instance") ?? ""));

export const SIGNED_OUT_SESSION = {
  login: true,
  signed_in: false,
  subject: null,
  permissions: null,
  providers: [{ id: "corp", name: "Corp SSO" }],
  password_login: true,
};

/** The session the sign-in proxy reports for `subject` signed in by password with `permissions`. */
export const signedInSession = (subject: string, permissions: string[]) => ({
  login: true,
  signed_in: true,
  subject,
  permissions,
  providers: [],
  password_login: true,
});

/**
 * Answers the page's `GET /auth/session` with `body`, as the sign-in proxy would (replacing
 * an earlier mock). The UI reads the session once per document: open a fresh one after this.
 */
export async function mockSession(page: Page, body: object): Promise<void> {
  await page.unroute("**/auth/session");
  await page.route("**/auth/session", (route) =>
    route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(body) }),
  );
}
