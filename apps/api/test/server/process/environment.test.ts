import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  API_MAIN,
  client,
  createTestDatabase,
  dropTestDatabase,
  type ListeningProcess,
  settled,
  spawnListening,
} from "@baton/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { bearer, JWT_AUDIENCE, JWT_ISSUER, jwtSecretFile, mintJwt, runApi } from "../../support/auth-fixtures.js";

// Every flag of baton-api is also an environment variable, BATON_<FLAG> (DATABASE_URL for --db),
// a flag on the command line winning, and any variable may name a file in <NAME>_FILE
// (docs/deploy.md "Configuration from the environment"). The same smoke test runs on a server
// configured by flags and on one configured by variables alone.
const secret = jwtSecretFile();
const started: ListeningProcess[] = [];
const databases: string[] = [];
afterAll(async () => {
  for (const server of started) await server.terminate();
  for (const database of databases) await dropTestDatabase(database);
  secret.dispose();
});

/** A fresh database: `["--db", url]` on PostgreSQL, `["--data-dir", "memory://"]` on PGlite. */
async function database(): Promise<{ flag: string; value: string; variable: string }> {
  if (!process.env.DATABASE_URL) return { flag: "--data-dir", value: "memory://", variable: "BATON_DATA_DIR" };
  const url = await createTestDatabase();
  databases.push(url);
  return { flag: "--db", value: url, variable: "DATABASE_URL" };
}

/** The environment without the variables a developer's shell (or CI) may carry. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("BATON_") && name !== "DATABASE_URL"),
  ) as Record<string, string>;
  return { ...env, ...extra };
}

async function spawnApi(args: string[], env: Record<string, string>): Promise<ListeningProcess> {
  const server = await spawnListening("baton-api", API_MAIN, args, cleanEnv(env), 90_000);
  started.push(server);
  return server;
}

/** What both servers are configured with: token auth with the proxy's JWTs, a small body limit, no tick, a retention. */
const SETTINGS: Array<[string, string]> = [
  ["--http", "127.0.0.1:0"],
  ["--auth", "token"],
  ["--jwt-issuer", JWT_ISSUER],
  ["--jwt-audience", JWT_AUDIENCE],
  ["--max-body", "2048"],
  ["--fetch-deny", "192.0.2.1"],
  ["--retention", "30d"],
  ["--poll", "50"],
];

/** The smoke test: probes, auth, the configured limits, and a process run to completion. */
async function smoke(url: string): Promise<void> {
  const anonymous = client(url);
  expect((await anonymous.get("/livez")).status).toBe(200);
  expect((await anonymous.get("/readyz")).status).toBe(200);
  expect((await anonymous.get("/api/tokens")).status, "--auth token").toBe(401);
  const api = client(url, bearer(await mintJwt({ perms: ["admin"] })));
  expect((await api.get("/api/tokens")).status, "the JWT verifier from the secret file").toBe(200);
  expect((await api.post("/api/tick", {})).status, "--no-tick").toBe(501);
  const big = await api.post("/api/instances", { process: "x", input: { pad: "x".repeat(4096) } });
  expect(big.status, "--max-body 2048").toBe(413);
  const deployed = await api.put("/api/definitions", {
    name: "smoke",
    tasks: [
      { id: "hello", output: { said: "hello" } },
      { id: "call", action: { type: "fetch", method: "get", url: "http://192.0.2.1/" } },
    ],
  });
  expect(deployed.status, deployed.text).toBe(200);
  const id = (await api.post("/api/instances", { process: "smoke", input: {} })).body.id;
  const done = await settled(api, id);
  expect(done.status, "the engine ran it (--poll)").toBe("failed");
  expect(done.error_code).toBe("pre.error");
  expect(done.error_message, "--fetch-deny").toContain("--fetch-deny");
}

describe("baton-api configured from the environment", () => {
  it("names a variable for every flag in --help, by the one rule (--db and --read-db keep the usual URL names)", async () => {
    const help = (await runApi(["--help"])).stdout;
    const entries = help
      .slice(help.indexOf("Options:"), help.indexOf("Commands:"))
      .split(/\n {2}(?=-)/)
      .slice(1)
      .map((entry) => entry.replace(/\s+/g, " "));
    const flags = entries.map((entry) => entry.split(" ")[0]!).filter((f) => f !== "--version" && f !== "-h,");
    expect(flags.length, "every flag of the server").toBeGreaterThan(40);
    const named: Record<string, string> = { "--db": "DATABASE_URL", "--read-db": "READ_DATABASE_URL" };
    for (const flag of flags) {
      const variable = named[flag] ?? `BATON_${flag.slice(2).replaceAll("-", "_").toUpperCase()}`;
      expect(
        entries.find((entry) => entry.startsWith(`${flag} `)),
        flag,
      ).toMatch(new RegExp(`env: ${variable}\\)`));
    }
  });

  it("passes the smoke test configured by flags", async () => {
    const db = await database();
    const args = [...SETTINGS.flat(), "--jwt-secret-file", secret.path, "--no-tick", db.flag, db.value];
    await smoke((await spawnApi(args, {})).url);
  });

  it("passes the same smoke test configured by environment variables alone, a secret read from a _FILE", async () => {
    const db = await database();
    const env: Record<string, string> = Object.fromEntries(
      SETTINGS.map(([flag, value]) => [`BATON_${flag.slice(2).replaceAll("-", "_").toUpperCase()}`, value]),
    );
    const dir = mkdtempSync(join(tmpdir(), "baton-env-"));
    try {
      // The database location comes from a file, as a container secret would.
      writeFileSync(join(dir, "db"), `${db.value}\n`);
      env[`${db.variable}_FILE`] = join(dir, "db");
      env.BATON_JWT_SECRET_FILE = secret.path;
      env.BATON_NO_TICK = "1";
      await smoke((await spawnApi([], env)).url);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lets a flag win over its variable", async () => {
    const db = await database();
    const server = await spawnApi([db.flag, db.value, "--http", "127.0.0.1:0", "--max-body", "65536"], {
      BATON_HTTP: "127.0.0.1:1",
      BATON_MAX_BODY: "1024",
    });
    const api = client(server.url);
    const res = await api.post("/api/instances", { process: "none", input: { pad: "x".repeat(4096) } });
    expect(res.status, "--max-body 65536, not 1024").not.toBe(413);
  });

  it("refuses a variable it cannot use with one line naming it", async () => {
    const both = await runApi(["--data-dir", "memory://"], { BATON_HTTP: ":0", BATON_HTTP_FILE: "/x" });
    expect(both.code).not.toBe(0);
    expect(both.stderr.trim()).toBe("baton-api: BATON_HTTP and BATON_HTTP_FILE are both set; set one of them");
    const word = await runApi(["--data-dir", "memory://", "--http", "127.0.0.1:0"], { BATON_NO_TICK: "yes" });
    expect(word.stderr.trim()).toBe(
      'baton-api: BATON_NO_TICK must be 1 or true to give --no-tick, or 0 or false not to (got "yes")',
    );
    const bad = await runApi(["--data-dir", "memory://"], { BATON_MAX_BODY: "lots" });
    expect(bad.stderr.trim(), "a variable goes through its flag's check").toContain("--max-body must be an integer");
  });
});
