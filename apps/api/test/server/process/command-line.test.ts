import { execFile } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  API_MAIN,
  client,
  createTestDatabase,
  dropTestDatabase,
  request,
  startServer,
  onPostgres,
} from "@baton/testkit";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

async function runApi(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const e = { ...(process.env as Record<string, string>), ...env };
  delete e.DATABASE_URL;
  try {
    const { stdout, stderr } = await run(process.execPath, [API_MAIN, ...args], { env: e, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error: any) {
    return { code: error.code ?? 1, stdout: error.stdout ?? "", stderr: error.stderr ?? "" };
  }
}

describe("baton-api command line", () => {
  it("prints its version and exits 0", async () => {
    const r = await runApi(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("documents every flag in --help", async () => {
    const r = await runApi(["--help"]);
    for (const flag of [
      "--http",
      "--db",
      "--data-dir",
      "--poll",
      "--auth",
      "--log-level",
      "--max-body",
      "--retention",
      "--log-retention",
      "--read-db",
      "--read-db-max-lag",
      "--version",
    ])
      expect(r.stdout).toContain(flag);
  });

  it("refuses a bad flag value with one clear line and a non-zero exit", async () => {
    const auth = await runApi(["--auth", "magic", "--data-dir", "memory://"]);
    expect(auth.code).not.toBe(0);
    expect(auth.stderr).toMatch(/--auth/);
    const http = await runApi(["--http", "nowhere", "--data-dir", "memory://"]);
    expect(http.code).not.toBe(0);
    expect(http.stderr.trim().split("\n")).toHaveLength(1);
    expect(http.stderr).toContain("HOST:PORT");
    const poll = await runApi(["--poll", "-5", "--data-dir", "memory://"]);
    expect(poll.code).not.toBe(0);
    // A read replica needs a PostgreSQL primary: PGlite has none to stream from.
    const replica = await runApi(["--read-db", "postgres://x@127.0.0.1:1/y", "--data-dir", "memory://"]);
    expect(replica.code).not.toBe(0);
    expect(replica.stderr.trim().split("\n")).toHaveLength(1);
    expect(replica.stderr).toContain("--read-db needs --db");
  });

  it("answers an unknown flag or a malformed number with one line on stderr, not the help text", async () => {
    for (const args of [
      ["--bogus"],
      ["--poll", "x"],
      ["tokens", "create", "--perms", "admin"],
      ["--retention", "10s"],
      ["--log-retention", "soon"],
    ]) {
      const r = await runApi([...args, "--data-dir", "memory://"]);
      expect(r.code, args.join(" ")).toBe(1);
      const lines = r.stderr.trim().split("\n");
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^baton-api: .+ \(see --help\)$/);
    }
  });

  it("exits non-zero with one line when the port is taken", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await runApi(["--http", `127.0.0.1:${port}`, "--data-dir", "memory://"]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain("already in use");
    } finally {
      blocker.close();
    }
  });

  it("exits non-zero with one line when the database is unreachable", async () => {
    const r = await runApi(["--http", "127.0.0.1:0", "--db", "postgres://nobody@127.0.0.1:1/none"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/cannot reach the database/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("shuts down cleanly on SIGTERM", async () => {
    const server = await startServer();
    const exit = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
    server.child.kill("SIGTERM");
    expect(await exit, "SIGTERM must drain and exit 0").toBe(0);
    await server.stop();
  });

  it("keeps definitions in a PGlite data dir across restarts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "baton-data-"));
    try {
      const first = await startServer({ args: ["--data-dir", dir] });
      await client(first.url).put("/api/definitions", { name: "kept", tasks: [{ id: "a" }] });
      const second = await runApi(["--http", "127.0.0.1:0", "--data-dir", dir]);
      expect(second.code, "a second process on the same PGlite directory would corrupt it").not.toBe(0);
      expect(second.stderr).toContain(`in use by process ${first.child.pid}`);
      await first.stop();
      const again = await startServer({ args: ["--data-dir", dir] });
      const list = await client(again.url).get("/api/definitions");
      expect(list.body.items.map((d: any) => d.name)).toEqual(["kept"]);
      await again.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.skipIf(!onPostgres)("replicas on one PostgreSQL (needs DATABASE_URL)", () => {
  it("migrates once when three replicas start together, and registrations racing on one name get distinct versions", async () => {
    const db = await createTestDatabase();
    const servers = await Promise.all([0, 1, 2].map(() => startServer({ database: db })));
    try {
      const puts = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          request(servers[i % 3]!.url, "PUT", "/api/definitions", { name: "raced", tasks: [{ id: `t${i}` }] }),
        ),
      );
      expect(
        puts.map((p) => p.status),
        "no registration may fail under a race",
      ).toEqual(Array(12).fill(200));
      const versions = puts.map((p) => p.body.version).sort((a, b) => a - b);
      expect(versions, "each racing registration must get its own version").toEqual(
        Array.from({ length: 12 }, (_, i) => i + 1),
      );
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await dropTestDatabase(db);
    }
  }, 120_000);

  it("answers /healthz 503 when its database goes away", async () => {
    const db = await createTestDatabase();
    const server = await startServer({ database: db });
    try {
      expect((await request(server.url, "GET", "/healthz")).status).toBe(200);
      await dropTestDatabase(db);
      const res = await request(server.url, "GET", "/healthz");
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: "unavailable", database: "postgres" });
    } finally {
      await server.stop();
    }
  }, 60_000);
});
