// End to end through the real sign-in proxy: baton-api with `--auth token` and JWT
// verification, the built baton-proxy with password users and an OpenID provider (the proxy
// tests' fake one, on loopback) serving the built UI, and chromium signing in. Machine checks use a `svc_sk_` admin token straight against the API, the way CI
// or a worker would.

import { type ChildProcess, execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenIdProvider, startFakeOpenIdProvider } from "../../test/support/fake-openid-provider.js";
import { ORDER_V1 } from "./fixtures.js";
import { chromiumPath, eventually, launchBrowser, WEB_ROOT } from "./harness.js";

const PROXY_MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));
const UI_DIR = join(WEB_ROOT, "dist");

const ISSUER = "ui-e2e-proxy";
const AUDIENCE = "ui-e2e-api";
// bcrypt (cost 4, made with bcryptjs) of "olga-operator-pw", "rita-reader-pw" and "ada-admin-pw".
const OLGA = {
  email: "olga@example.com",
  password: "olga-operator-pw",
  hash: "$2b$04$cToTRg.NkOmtMektLM0gL.J92uP0htcwYByEwpV4R.gCdcFg0FDxC",
};
const RITA = {
  email: "rita@example.com",
  password: "rita-reader-pw",
  hash: "$2b$04$ENn8LlaPRRR8z7RS5AZbE.7zz/7cTgJpQo9keavlMeJbm52ge0ut2",
};

const ADA = {
  email: "ada@example.com",
  password: "ada-admin-pw",
  hash: "$2b$04$mTgHOSQkCVlpsyRByNUTTunvvmg9Q/ZAvTWUF2.WLaNQWclqqox1.",
};

// bcrypt (cost 4, bcryptjs) of "walt-worker-pw": a person who answers human tasks (worker).
const WALT = {
  email: "walt@example.com",
  password: "walt-worker-pw",
  hash: "$2b$04$dUsARlnjwBzfaDrIotWciuKpDbsQaIhu1AXc54TPgB6TepsBOxOgi",
};

let dir: string;
let database: { location: string; flags: string[]; dispose: () => Promise<void> } | undefined;
let api: TestServer | undefined;
let proxy: { url: string; child: ChildProcess; stop: () => Promise<void> } | undefined;
let browser: Browser | undefined;
let op: FakeOpenIdProvider | undefined; // signs its user in at once on /authorize
let admin: BatonClient; // a svc_sk_ admin token, straight to the API
let forOlga: string; // order parked on "approve": Olga pauses it from the UI
let forRita: string; // order parked on "approve": Rita may only look at it

function runApi(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(process.execPath, [API_MAIN, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
    });
  });
}

async function startProxy(config: string): Promise<NonNullable<typeof proxy>> {
  const env: NodeJS.ProcessEnv = { ...process.env, BATON_PROXY_UI_DIR: UI_DIR };
  delete env.BATON_PROXY_CONFIG;
  delete env.BATON_SERVER;
  const started = await spawnListening(
    "baton-proxy",
    PROXY_MAIN,
    ["--config", config, "--http", "127.0.0.1:0"],
    env as Record<string, string>,
    20_000,
  );
  return {
    url: started.url,
    child: started.child,
    stop: async () => {
      await started.terminate();
    },
  };
}

async function parkedOrder(item: string): Promise<string> {
  const id = (await admin.call("startInstance", { body: { process: "order", input: { item } } })).id;
  await eventually(`order ${item} parked on approve`, async () =>
    (await admin.call("getInstanceDetail", { params: { id } })).phase === "external" ? true : undefined,
  );
  return id;
}

beforeAll(async () => {
  chromiumPath();
  for (const [path, build] of [
    [API_MAIN, "--filter=@baton/api"],
    [PROXY_MAIN, "--filter=@baton/proxy"],
    [join(UI_DIR, "index.html"), "--filter=@baton/web"],
  ] as const) {
    if (!existsSync(path))
      throw new Error(
        `${path} is missing: the sign-in proxy test runs the built api, proxy and UI (pnpm exec turbo run build ${build})`,
      );
  }
  dir = mkdtempSync(join(tmpdir(), "baton-ui-e2e-"));
  writeFileSync(join(dir, "jwt-secret"), "ui-e2e-shared-secret-of-at-least-32-characters\n");

  // A database the bootstrap command writes the admin token into before the server opens it.
  if (process.env.DATABASE_URL) {
    const url = await createTestDatabase();
    database = { location: url, flags: ["--db", url], dispose: () => dropTestDatabase(url) };
  } else {
    const dataDir = join(dir, "data");
    database = { location: dataDir, flags: ["--data-dir", dataDir], dispose: async () => {} };
  }
  const created = await runApi(["tokens", "create", "--label", "ui-e2e admin", "--perms", "admin", ...database.flags]);
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
  admin = createClient({ server: api.url, token: created.stdout.trim() });

  op = await startFakeOpenIdProvider();
  writeFileSync(
    join(dir, "proxy.yaml"),
    `server: ${api.url}
login:
  passwords:
    - { email: ${OLGA.email}, hash: "${OLGA.hash}", groups: [ops] }
    - { email: ${RITA.email}, hash: "${RITA.hash}" }
    - { email: ${ADA.email}, hash: "${ADA.hash}", groups: [admins] }
    - { email: ${WALT.email}, hash: "${WALT.hash}", groups: [tasks] }
  providers:
    - { id: fake, name: Fake IdP, issuer: "${op.issuer}", client_id: ${op.clientId}, client_secret: ${op.clientSecret} }
token: { secret_file: jwt-secret, issuer: ${ISSUER}, audience: ${AUDIENCE} }
roles:
  ops: [operate]
  admins: [admin]
  tasks: [worker]
  "*": [read]
`,
  );
  proxy = await startProxy(join(dir, "proxy.yaml"));
  browser = await launchBrowser();

  await admin.call("putDefinition", { body: ORDER_V1 as unknown as DefinitionInput });
  await admin.call("setChannel", { body: { name: "order", channel: "stable", version: 1 } });
  forOlga = await parkedOrder("anvil");
  forRita = await parkedOrder("bellows");
});

afterAll(async () => {
  await browser?.close();
  await proxy?.stop();
  await api?.stop();
  await op?.close();
  await database?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function freshPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser!.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return { context, page };
}

async function signIn(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.getByLabel("Email", { exact: true }).fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect
    .poll(() => page.locator("header .who").textContent(), {
      message: `${who.email} is signed in and named in the header`,
    })
    .toContain(who.email);
}

describe("the UI through the real sign-in proxy", () => {
  it("signs an operator in with a password, lists an instance started through the API, pauses it, and signs out", async () => {
    const { context, page } = await freshPage();
    try {
      await page.goto(proxy!.url);
      await expect
        .poll(() => page.getByRole("heading", { name: "Sign in to Baton" }).count(), {
          message: "the proxy serves the UI, which asks to sign in first",
        })
        .toBe(1);
      expect(await page.locator("table").count(), "nothing of the API is shown before sign-in").toBe(0);

      await page.getByLabel("Email", { exact: true }).fill(OLGA.email);
      await page.getByLabel("Password", { exact: true }).fill("not-her-password");
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect
        .poll(() => page.getByRole("alert").textContent(), {
          message: "a wrong password is refused with the proxy's sentence",
        })
        .toBe("wrong email or password");

      await signIn(page, OLGA);
      const row = page.locator(`tr[data-instance="${forOlga}"]`);
      await expect
        .poll(() => row.count(), { message: "the instance started with the API token is listed through the proxy" })
        .toBe(1);
      expect(await row.locator(".status").textContent()).toBe("running");

      await row.getByRole("link", { name: forOlga }).click();
      await page.getByRole("button", { name: "Pause", exact: true }).click();
      await expect.poll(() => page.locator("dl.facts .status").textContent()).toBe("paused");
      expect((await admin.call("getInstance", { params: { id: forOlga } })).status, "the API agrees").toBe("paused");
      const logs = await admin.call("listInstanceLogs", { params: { id: forOlga } });
      expect(
        logs.items.find((entry) => entry.event === "instance.paused")?.actor,
        "the proxy's JWT carried the person, and the API recorded her as the actor",
      ).toBe(OLGA.email);
      expect(
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tokens" }).count(),
        "tokens are for admins",
      ).toBe(0);

      await page.getByRole("button", { name: "Sign out" }).click();
      await expect.poll(() => page.getByRole("heading", { name: "Sign in to Baton" }).count()).toBe(1);
      const after = await context.request.get(`${proxy!.url}/api/instances`);
      expect(after.status(), "after sign-out the browser's cookie no longer reaches the API").toBe(401);
    } finally {
      await context.close();
    }
  });

  it("shows a reader no lifecycle buttons, and the API refuses her pause with 403 through the proxy", async () => {
    const { context, page } = await freshPage();
    try {
      await page.goto(`${proxy!.url}/#/instances/${forRita}`);
      await signIn(page, RITA);
      await expect
        .poll(() => page.locator("dl.facts .status").textContent(), { message: "the deep link opens after sign-in" })
        .toBe("running");
      for (const name of ["Pause", "Resume", "Cancel", "Retry", "Upgrade"]) {
        expect(await page.getByRole("button", { name, exact: true }).count(), `a reader is not offered ${name}`).toBe(
          0,
        );
      }
      expect(await page.locator(".lifecycle").textContent()).toContain(
        "No action applies to a running instance with your permissions",
      );

      const pause = await context.request.post(`${proxy!.url}/api/instances/${forRita}/pause`);
      expect(pause.status(), "hiding the button is a courtesy; the API itself refuses").toBe(403);
      expect((await pause.json()).code).toBe("forbidden");
      expect((await admin.call("getInstance", { params: { id: forRita } })).status, "the instance still runs").toBe(
        "running",
      );
    } finally {
      await context.close();
    }
  });

  it("brings a person who signs in with an OpenID provider back to the deep link she opened", async () => {
    op!.user = { sub: "u-oscar", claims: { email: "oscar@example.com", email_verified: true } };
    const authorizedBefore = op!.authorizeRequests.length;
    const { context, page } = await freshPage();
    try {
      await page.goto(`${proxy!.url}/#/instances/${forRita}`);
      await page.getByRole("link", { name: "Sign in with Fake IdP" }).click();
      await expect
        .poll(() => page.locator("header .who").textContent(), { message: "the provider round trip ends signed in" })
        .toContain("oscar@example.com");
      expect(op!.authorizeRequests.length, "the sign-in went through the provider's /authorize").toBe(
        authorizedBefore + 1,
      );
      expect(page.url(), "the fragment never reaches the proxy, so the UI sent it as return_to").toBe(
        `${proxy!.url}/#/instances/${forRita}`,
      );
      await expect
        .poll(() => page.locator("h1").textContent(), {
          message: "the instance page she asked for, not the instance list",
        })
        .toContain(forRita);
      await expect.poll(() => page.locator("dl.facts .status").textContent()).toBe("running");
    } finally {
      await context.close();
    }
  });

  it("names an API token's changes by the token's label wherever an actor is shown, for an admin and for a reader who may not list tokens", async () => {
    const token = (await admin.call("listTokens")).items.find((t) => t.label === "ui-e2e admin")!;
    const raw = `token:${token.id}`;
    // Rita has `read` only (GET /tokens needs admin): the label comes with each row from the API.
    for (const person of [ADA, RITA]) {
      const { context, page } = await freshPage();
      try {
        await page.goto(`${proxy!.url}/#/definitions`);
        await signIn(page, person);
        const actorCell = page.locator("tbody tr").first().locator(".actor");
        await expect
          .poll(() => actorCell.textContent(), {
            message: `${person.email}: the definition registered with the token shows its label`,
          })
          .toBe("ui-e2e admin (token)");
        expect(await actorCell.getAttribute("title"), "the raw actor stays on hover").toBe(raw);

        await page.getByRole("link", { name: "v1", exact: true }).click();
        await expect.poll(() => page.locator("main").textContent()).toContain("by ui-e2e admin (token)");

        await page.goto(`${proxy!.url}/#/channels`);
        await expect
          .poll(() => page.locator('tr[data-channel="stable"] .actor').textContent())
          .toBe("ui-e2e admin (token)");

        await page.goto(`${proxy!.url}/#/instances/${forOlga}`);
        const started = page.locator("table.logs tbody tr", { hasText: "instance.started" }).locator(".actor");
        await expect.poll(() => started.textContent()).toBe("ui-e2e admin (token)");
        expect(await page.locator("main").textContent(), "no raw token actor is shown anywhere").not.toContain(raw);
      } finally {
        await context.close();
      }
    }
  });

  it("lets a person with worker resolve a task from its page, and the API refuses a reader's answer with 403", async () => {
    const forWalt = await parkedOrder("lantern");
    const forNobody = await parkedOrder("ladder");
    const walt = await freshPage();
    try {
      await walt.page.goto(`${proxy!.url}/#/external/${forWalt}`);
      await signIn(walt.page, WALT);
      const form = walt.page.getByRole("form", { name: "Resolve" });
      await expect.poll(() => form.getByLabel("ok").count(), { message: "the form from result_schema" }).toBe(1);
      await form.getByLabel("ok").check();
      await form.getByRole("button", { name: "Resolve" }).click();
      await expect.poll(() => walt.page.getByRole("status").textContent()).toContain("Resolved");
      await eventually("the order resolved by Walt completed", async () =>
        (await admin.call("getInstance", { params: { id: forWalt } })).status === "completed" ? true : undefined,
      );
      const logs = await admin.call("listInstanceLogs", { params: { id: forWalt }, query: { limit: 100 } });
      expect(logs.items.find((entry) => entry.event === "external.resolved")?.actor, "the actor is Walt").toContain(
        WALT.email,
      );
    } finally {
      await walt.context.close();
    }

    const rita = await freshPage();
    try {
      await rita.page.goto(`${proxy!.url}/#/external/${forNobody}`);
      await signIn(rita.page, RITA);
      await expect.poll(() => rita.page.getByTestId("needs-worker").count()).toBe(1);
      expect(await rita.page.getByRole("form", { name: "Resolve" }).count(), "a reader gets no form").toBe(0);
      const signal = await rita.context.request.post(`${proxy!.url}/api/external-tasks/signal`, {
        data: { instance_id: forNobody, task: "approve", result: { ok: true } },
      });
      expect(signal.status(), "hiding the form is a courtesy; the API itself refuses").toBe(403);
      expect((await admin.call("listExternalTasks", { query: { instance_id: forNobody } })).items).toHaveLength(1);
    } finally {
      await rita.context.close();
    }
  });
});
