import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request, startServer } from "@baton/testkit";
import { afterAll, describe, expect, it, vi } from "vitest";
import { runApi } from "../../support/auth-fixtures.js";

// Each test spawns the built binary (a PGlite start is 3-15 s on a busy 2-core machine).
vi.setConfig({ testTimeout: 120_000 });

const dir = mkdtempSync(join(tmpdir(), "baton-auth-startup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function warnings(stderr: string): any[] {
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.level === "warn");
}

describe("start-up with --auth none", () => {
  it("warns when listening beyond loopback", async () => {
    const server = await startServer({ args: ["--http", "0.0.0.0:0", "--poll", "0"] });
    try {
      const warned = warnings(server.stderr()).filter((w) => w.msg.includes("--auth none"));
      expect(warned, server.stderr()).toHaveLength(1);
      expect(warned[0]).toMatchObject({ auth: "none", host: "0.0.0.0" });
    } finally {
      await server.stop();
    }
  });

  it("stays quiet on loopback, and reads no credential at all", async () => {
    const server = await startServer({ args: ["--http", "127.0.0.1:0", "--poll", "0"] });
    try {
      expect(
        warnings(server.stderr()).filter((w) => w.msg.includes("auth")),
        server.stderr(),
      ).toEqual([]);
      for (const headers of [{}, { authorization: "Bearer garbage" }, { authorization: "Basic Zm9vOmJhcg==" }]) {
        const res = await request(server.url, "GET", "/api/tokens", undefined, headers);
        expect(res.status, `${JSON.stringify(headers)}: every endpoint is open under --auth none`).toBe(200);
      }
    } finally {
      await server.stop();
    }
  });

  it("does not warn for --auth token beyond loopback", async () => {
    const server = await startServer({ args: ["--http", "0.0.0.0:0", "--auth", "token", "--poll", "0"] });
    try {
      expect(
        warnings(server.stderr()).filter((w) => w.msg.includes("auth")),
        server.stderr(),
      ).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

describe("start-up refusals of the JWT settings", () => {
  const base = ["--auth", "token", "--http", "127.0.0.1:0", "--data-dir", "memory://", "--poll", "0"];

  it("refuses a secret file shorter than 32 characters after trimming, in one line, without printing it", async () => {
    const path = join(dir, "short");
    writeFileSync(path, "  thirty-one-characters-long-xxxx \n\n");
    const run = await runApi([...base, "--jwt-secret-file", path, "--jwt-issuer", "i", "--jwt-audience", "a"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      `--jwt-secret-file ${path}: the secret is 31 characters after trimming whitespace; at least 32 are required`,
    );
    expect(run.stderr).not.toContain("thirty-one-characters-long");
    expect(
      run.stderr
        .trim()
        .split("\n")
        .filter((l) => !l.startsWith("{")),
      "one line for a person",
    ).toHaveLength(1);
  });

  it("refuses a missing secret file", async () => {
    const path = join(dir, "absent");
    const run = await runApi([...base, "--jwt-secret-file", path, "--jwt-issuer", "i", "--jwt-audience", "a"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`--jwt-secret-file ${path}: cannot read it (no such file)`);
  });

  it("refuses incomplete JWT flags", async () => {
    const path = join(dir, "good");
    writeFileSync(path, "x".repeat(40));
    const run = await runApi([...base, "--jwt-secret-file", path]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("missing --jwt-issuer and --jwt-audience");
  });

  it("starts with a secret of exactly 32 characters", async () => {
    const path = join(dir, "exact");
    writeFileSync(path, `${"s".repeat(32)}\n`);
    const server = await startServer({
      args: ["--auth", "token", "--poll", "0", "--jwt-secret-file", path, "--jwt-issuer", "i", "--jwt-audience", "a"],
    });
    await server.stop();
  });
});
