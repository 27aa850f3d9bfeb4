import { execFile } from "node:child_process";
import { API_MAIN, type SharedDatabase, sharedDatabase, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatonRun, baton, isolatedEnv } from "./support/baton.js";
import { fixtureDir, GREET_YAML } from "./support/fixtures.js";

// A server with --auth token, whose first admin token is minted by the api binary's bootstrap
// command on the same database before the server opens it (PGlite is single-process).
let server: TestServer;
let database: SharedDatabase;
let adminToken: string;
let env: Record<string, string>;
const cli = (args: string[], extraEnv: Record<string, string> = {}, cwd?: string): Promise<BatonRun> =>
  baton(args, { env: { ...env, ...extraEnv }, cwd });

function bootstrapAdminToken(databaseFlags: string[]): Promise<string> {
  const childEnv = { ...(process.env as Record<string, string>) };
  delete childEnv.DATABASE_URL;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [API_MAIN, "tokens", "create", "--label", "cli-e2e-admin", "--perms", "admin", ...databaseFlags],
      { env: childEnv },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`tokens create failed: ${stderr}`));
        else resolve(stdout.trim());
      },
    );
  });
}

beforeAll(async () => {
  database = await sharedDatabase("baton-cli-auth-");
  adminToken = await bootstrapAdminToken(database.flags);
  server = await startServer({ database: database.location, args: ["--auth", "token", "--poll", "0"] });
  env = isolatedEnv({ BATON_SERVER: server.url }).env;
});

afterAll(async () => {
  await server?.stop();
  await database?.dispose();
});

describe("authentication", () => {
  it("exits 3 without a token or with an unknown one", async () => {
    const run = await cli(["instances"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^error: unauthenticated: [^\n]+\n$/);
    expect((await cli(["instances"], { BATON_TOKEN: "svc_sk_not-a-real-token" })).code).toBe(3);
  });

  it("creates, lists and revokes tokens with the admin token from BATON_TOKEN", async () => {
    const admin = { BATON_TOKEN: adminToken };
    const created = await cli(["tokens", "create", "--label", "ci-deploy", "--perms", "deploy,read", "--json"], admin);
    expect(created.code, created.stderr).toBe(0);
    const token = JSON.parse(created.stdout);
    expect(token).toMatchObject({
      label: "ci-deploy",
      perms: ["deploy", "read"],
      token: expect.stringMatching(/^svc_sk_/),
    });

    const quiet = await cli(["tokens", "create", "--label", "reader", "--perms", "read", "--quiet"], admin);
    expect(quiet.stdout, "--quiet prints only the secret").toMatch(/^svc_sk_\S+\n$/);
    const plain = await cli(["tokens", "create", "--label", "plain", "--perms", "read"], admin);
    expect(plain.stdout, "stdout is the secret alone, for $(…)").toMatch(/^svc_sk_\S+\n$/);
    expect(plain.stderr).toMatch(/^created token \S+ \(plain; read\)$/m);

    const list = await cli(["tokens"], admin);
    expect(list.stdout.split("\n")[0]).toMatch(/^ID\s+LABEL\s+PERMS/);
    expect(list.stdout).toContain("ci-deploy");
    expect(list.stdout, "listing never shows a secret").not.toContain("svc_sk_");
    const listed = JSON.parse((await cli(["tokens", "--json"], admin)).stdout);
    expect(listed.items.map((item: { label: string }) => item.label)).toEqual(
      expect.arrayContaining(["cli-e2e-admin", "ci-deploy", "reader"]),
    );

    // The deploy token deploys; a read token is forbidden to (exit 3 as well).
    const dir = fixtureDir({ "greet.yaml": GREET_YAML });
    expect((await cli(["deploy", "greet.yaml"], { BATON_TOKEN: token.token }, dir)).stdout).toBe("greet v1 (new)\n");
    const readOnly = await cli(["deploy", "greet.yaml"], { BATON_TOKEN: quiet.stdout.trim() }, dir);
    expect(readOnly.code).toBe(3);
    expect(readOnly.stderr).toMatch(/^error: forbidden: /);

    expect((await cli(["tokens", "revoke", token.id], admin)).stdout).toBe(`revoked ${token.id}\n`);
    expect(
      (await cli(["definitions"], { BATON_TOKEN: token.token })).code,
      "a revoked token stops working at once",
    ).toBe(3);
    expect((await cli(["tokens", "revoke", "00000000-0000-7000-8000-000000000000"], admin)).code).toBe(4);
  });

  it("names a token's changes by its label, with the token actor beside it; --json passes actor and actor_label through", async () => {
    const created = await cli(
      ["tokens", "create", "--label", "ci deploys", "--perms", "deploy,operate,read", "--json"],
      {
        BATON_TOKEN: adminToken,
      },
    );
    const token = JSON.parse(created.stdout);
    const as = { BATON_TOKEN: token.token };
    const actor = `token:${token.id}`;
    const dir = fixtureDir({ "labelled.yaml": GREET_YAML.replace("name: greet", "name: labelled") });
    expect((await cli(["deploy", "labelled.yaml"], as, dir)).code).toBe(0);
    const got = await cli(["definitions", "get", "labelled"], as);
    expect(got.stderr).toContain(` by ci deploys <${actor}>`);
    const summary = JSON.parse((await cli(["definitions", "labelled", "--json"], as)).stdout).items[0];
    expect([summary.actor, summary.actor_label]).toEqual([actor, "ci deploys"]);

    const id = (await cli(["run", "labelled", "--input", '{"who": "Ada"}'], as)).stdout.trim();
    const logs = await cli(["logs", id], as);
    expect(logs.stdout.split("\n").find((line) => line.includes("instance.started"))).toContain(
      `(by ci deploys <${actor}>)`,
    );
    const entries = JSON.parse((await cli(["logs", id, "--json"], as)).stdout).items;
    const started = entries.find((entry: { event: string }) => entry.event === "instance.started");
    expect([started.actor, started.actor_label]).toEqual([actor, "ci deploys"]);
  });

  it("mints a scoped token with --scopes, and baton whoami names its permissions and scopes", async () => {
    const admin = { BATON_TOKEN: adminToken };
    const created = await cli(
      ["tokens", "create", "--label", "orders admin", "--perms", "admin", "--scopes", "orders-*", "--quiet"],
      admin,
    );
    expect(created.code, created.stderr).toBe(0);
    const scoped = { BATON_TOKEN: created.stdout.trim() };
    const me = await cli(["whoami"], scoped);
    expect(me.code, me.stderr).toBe(0);
    expect(me.stdout).toMatch(/^actor: {2}orders admin \(token:\S+\)\nperms: {2}admin\nscopes: orders-\*\n$/);
    expect(JSON.parse((await cli(["whoami", "--json"], admin)).stdout)).toMatchObject({ scopes: null, auth: "token" });
    // A scoped admin mints within its own scopes only (exit 3: forbidden).
    const wider = await cli(["tokens", "create", "--label", "x", "--perms", "read", "--scopes", "billing-*"], scoped);
    expect(wider.code).toBe(3);
    expect(wider.stderr).toMatch(/^error: forbidden: body\.scopes reaches processes outside/);
    const listed = JSON.parse((await cli(["tokens", "--json"], scoped)).stdout);
    expect(
      listed.items.map((t: { label: string }) => t.label),
      "its own scope's tokens only",
    ).toEqual(["orders admin"]);
  });

  it("refuses unknown permissions before asking the server", async () => {
    const run = await cli(["tokens", "create", "--label", "x", "--perms", "root"], { BATON_TOKEN: adminToken });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: --perms: unknown permission "root"/);
  });

  it("uses the token stored by baton login for that server only", async () => {
    const login = await cli(["login", "--server", server.url, "--token", adminToken]);
    expect(login.code).toBe(0);
    const noEnv = { ...env };
    delete noEnv.BATON_SERVER;
    const stored = await baton(["tokens", "--json"], { env: noEnv });
    expect(stored.code, stored.stderr).toBe(0);
    const elsewhere = await baton(["tokens", "--server", server.url.replace("127.0.0.1", "localhost")], { env: noEnv });
    expect(elsewhere.code, "the stored token is not sent to another server URL").toBe(3);
    await baton(["logout"], { env: noEnv });
    expect((await baton(["tokens", "--server", server.url], { env: noEnv })).code, "logout forgot the token").toBe(3);
  });
});
