// Two teams on one Baton (docs/auth.md "Scopes"), in a real browser through the real sign-in
// proxy: the proxy maps each person's group to scopes (role_scopes), mints them into the JWT,
// and baton-api answers each only what their scopes cover. Olga (orders) and Bill (billing)
// each see their own team's instances in the list, never the other's, and the header names
// their scopes.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BatonClient, createClient, type DefinitionInput } from "@baton/actions";
import {
  API_MAIN,
  createTestDatabase,
  dropTestDatabase,
  spawnListening,
  startServer,
  type TestServer,
} from "@baton/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, eventually, launchBrowser, rowIds, WEB_ROOT } from "./harness.js";

const PROXY_MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));
const ISSUER = "ui-scopes-proxy";
const AUDIENCE = "ui-scopes-api";
// bcrypt (cost 4, bcryptjs) of "olga-operator-pw" and "rita-reader-pw", reused for two teams' people.
const OLGA = {
  email: "olga@example.com",
  password: "olga-operator-pw",
  hash: "$2b$04$cToTRg.NkOmtMektLM0gL.J92uP0htcwYByEwpV4R.gCdcFg0FDxC",
};
const BILL = {
  email: "bill@example.com",
  password: "rita-reader-pw",
  hash: "$2b$04$ENn8LlaPRRR8z7RS5AZbE.7zz/7cTgJpQo9keavlMeJbm52ge0ut2",
};

let dir: string;
let database: { location: string; flags: string[]; dispose: () => Promise<void> } | undefined;
let api: TestServer | undefined;
let proxy: { url: string; stop: () => Promise<void> } | undefined;
let browser: Browser | undefined;
const started: Record<"orders" | "billing", string[]> = { orders: [], billing: [] };

function runApi(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(process.execPath, [API_MAIN, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  chromiumPath();
  dir = mkdtempSync(join(tmpdir(), "baton-ui-scopes-"));
  writeFileSync(join(dir, "jwt-secret"), "ui-scopes-shared-secret-of-at-least-32-characters\n");
  if (process.env.DATABASE_URL) {
    const url = await createTestDatabase();
    database = { location: url, flags: ["--db", url], dispose: () => dropTestDatabase(url) };
  } else {
    const dataDir = join(dir, "data");
    database = { location: dataDir, flags: ["--data-dir", dataDir], dispose: async () => {} };
  }
  const created = await runApi([
    "tokens",
    "create",
    "--label",
    "ui-scopes admin",
    "--perms",
    "admin",
    ...database.flags,
  ]);
  if (created.code !== 0) throw new Error(`baton-api tokens create failed (${created.code}):\n${created.stderr}`);
  api = await startServer({
    database: database.location,
    args: [
      "--auth",
      "token",
      "--jwt-secret-file",
      join(dir, "jwt-secret"),
      "--jwt-issuer",
      ISSUER,
      "--jwt-audience",
      AUDIENCE,
    ],
  });
  const admin: BatonClient = createClient({ server: api.url, token: created.stdout.trim() });
  for (const team of ["orders", "billing"] as const) {
    const process = `${team}-flow`;
    await admin.call("putDefinition", {
      body: { name: process, tasks: [{ id: "only" }] } as unknown as DefinitionInput,
    });
    for (let i = 0; i < 2; i++) started[team].push((await admin.call("startInstance", { body: { process } })).id);
  }
  writeFileSync(
    join(dir, "proxy.yaml"),
    `server: ${api.url}
login:
  passwords:
    - { email: ${OLGA.email}, hash: "${OLGA.hash}", groups: [orders] }
    - { email: ${BILL.email}, hash: "${BILL.hash}", groups: [billing] }
token: { secret_file: jwt-secret, issuer: ${ISSUER}, audience: ${AUDIENCE} }
roles:
  "*": [read, operate]
role_scopes:
  orders: [orders-*]
  billing: [billing-*]
`,
  );
  const env: NodeJS.ProcessEnv = { ...process.env, BATON_PROXY_UI_DIR: join(WEB_ROOT, "dist") };
  delete env.BATON_PROXY_CONFIG;
  delete env.BATON_SERVER;
  const child = await spawnListening(
    "baton-proxy",
    PROXY_MAIN,
    ["--config", join(dir, "proxy.yaml"), "--http", "127.0.0.1:0"],
    env as Record<string, string>,
    20_000,
  );
  proxy = {
    url: child.url,
    stop: async () => {
      await child.terminate();
    },
  };
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await proxy?.stop();
  await api?.stop();
  await database?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function signedIn(who: { email: string; password: string }): Promise<Page> {
  const context = await browser!.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(proxy!.url);
  await page.getByLabel("Email", { exact: true }).fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect.poll(() => page.locator("header .who").textContent()).toContain(who.email);
  return page;
}

describe("two people of two teams", () => {
  it.each([
    ["Olga of orders", OLGA, "orders", "billing"],
    ["Bill of billing", BILL, "billing", "orders"],
  ] as const)(
    "%s sees only the team's own instances, and the header names the scope",
    async (_who, person, own, other) => {
      const page = await signedIn(person);
      try {
        await page.goto(`${proxy!.url}/#/instances`);
        const ids = await eventually(`${own}'s instances listed`, async () => {
          const shown = await rowIds(page);
          return started[own].every((id) => shown.includes(id)) ? shown : undefined;
        });
        expect(
          ids.filter((id) => started[other].includes(id)),
          `no ${other} instance in ${own}'s list`,
        ).toEqual([]);
        expect(await page.locator("main").textContent()).not.toContain(`${other}-flow`);
        expect(await page.locator("header .who .scopes").textContent()).toBe(`scopes: ${own}-*`);
        // The other team's instance by its address: the API answers as for a missing one.
        await page.goto(`${proxy!.url}/#/instances/${started[other][0]}`);
        await expect.poll(() => page.locator("main").textContent()).toContain("does not exist");
      } finally {
        await page.context().close();
      }
    },
  );
});
