import { request, startServer, type SharedDatabase, sharedDatabase } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bearer, runApi, TOKEN_SECRET_PATTERN } from "../../support/auth-fixtures.js";

// Each test spawns the built binary (a PGlite start is 3-15 s on a busy 2-core machine).
vi.setConfig({ testTimeout: 120_000 });

// `node apps/api/dist/main.js tokens create|list|revoke` against the database a server
// then opens. PGlite allows one process at a time, so commands and servers take turns.

let database: SharedDatabase;

beforeAll(async () => {
  database = await sharedDatabase();
});
afterAll(async () => {
  await database?.dispose();
});

const tokens = (...args: string[]) => runApi(["tokens", ...args, ...database.flags]);

describe("baton-api tokens", () => {
  let secret: string;

  it("create prints the secret and nothing else on stdout", async () => {
    const run = await tokens("create", "--label", "first admin", "--perms", "admin");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^${TOKEN_SECRET_PATTERN.source}\\n$`));
    secret = run.stdout.trim();
    expect(run.stderr, "stderr may say what was created but never the secret").not.toContain(secret);
  });

  it("mints a token that a server on the same database accepts", async () => {
    const server = await startServer({ database: database.location, args: ["--auth", "token", "--poll", "0"] });
    try {
      const listed = await request(server.url, "GET", "/api/tokens", undefined, bearer(secret));
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.items).toHaveLength(1);
      expect(listed.body.items[0]).toMatchObject({ label: "first admin", perms: ["admin"], revoked_at: null });
      const created = await request(
        server.url,
        "POST",
        "/api/tokens",
        { label: "ci", perms: ["deploy", "read"] },
        bearer(secret),
      );
      expect(created.status, "the first admin token can mint the others").toBe(200);
      expect((await request(server.url, "GET", "/api/tokens")).status).toBe(401);
    } finally {
      await server.stop();
    }
  });

  it("list shows the tokens without secrets, as a table or as JSON", async () => {
    const table = await tokens("list");
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+LABEL\s+PERMS\s+SCOPES\s+CREATED\s+LAST USED\s+EXPIRES\s+STATUS\n/);
    expect(table.stdout).toContain("first admin");
    expect(table.stdout).not.toMatch(TOKEN_SECRET_PATTERN);
    const json = await tokens("list", "--json");
    const items = JSON.parse(json.stdout).items;
    expect(items.map((t: any) => t.label).sort()).toEqual(["ci", "first admin"]);
    expect(
      items.find((t: any) => t.label === "first admin").last_used_at,
      "the server recorded the use",
    ).not.toBeNull();
    expect(json.stdout).not.toContain(secret);
  });

  it("accepts several permissions and an expiry", async () => {
    const run = await tokens("create", "--label", "worker pool", "--perms", "worker,read", "--expires-in", "30d");
    expect(run.code, run.stderr).toBe(0);
    const item = JSON.parse((await tokens("list", "--json")).stdout).items.find((t: any) => t.label === "worker pool");
    expect(item.perms).toEqual(["worker", "read"]);
    expect(Date.parse(item.expires_at) - Date.parse(item.created_at)).toBe(30 * 86_400_000);
  });

  it("refuses unknown permissions and a missing label, with nothing on stdout and exit code 1", async () => {
    const bad = await tokens("create", "--label", "x", "--perms", "admin,root");
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toContain('"root" is not a permission; expected one of worker, read, operate, deploy, admin');
    const missing = await tokens("create", "--perms", "admin");
    expect(missing.code).not.toBe(0);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toContain("--label");
  });

  it("revoke makes the server refuse the token; revoking again says so; an unknown id fails", async () => {
    const id = JSON.parse((await tokens("list", "--json")).stdout).items.find((t: any) => t.label === "first admin").id;
    const revoked = await tokens("revoke", id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe(`revoked ${id}\n`);
    expect((await tokens("revoke", id)).stdout).toBe(`${id} was already revoked\n`);
    const unknown = await tokens("revoke", "no-such-token");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no token with id "no-such-token"');
    const server = await startServer({ database: database.location, args: ["--auth", "token", "--poll", "0"] });
    try {
      const res = await request(server.url, "GET", "/api/tokens", undefined, bearer(secret));
      expect(res.status).toBe(401);
      expect(res.body.error).toContain("revoked");
    } finally {
      await server.stop();
    }
  });

  it("create --perms none makes a token without permissions, as docs/auth.md says: it authenticates and is admitted nowhere", async () => {
    const run = await tokens("create", "--label", "no perms", "--perms", "none");
    expect(run.code, run.stderr).toBe(0);
    const noPerms = run.stdout.trim();
    const item = JSON.parse((await tokens("list", "--json")).stdout).items.find((t: any) => t.label === "no perms");
    expect(item.perms).toEqual([]);
    expect((await tokens("list")).stdout).toMatch(/no perms\s+none\s/);
    const server = await startServer({ database: database.location, args: ["--auth", "token", "--poll", "0"] });
    try {
      const res = await request(server.url, "GET", "/api/instances", undefined, bearer(noPerms));
      expect(res.status, "authenticated, not admitted").toBe(403);
    } finally {
      await server.stop();
    }
  });
});
