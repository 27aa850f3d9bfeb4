import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { baton, isolatedEnv } from "./support/baton.js";

// Commands spawned here never reach a server: 127.0.0.1:9 (discard) refuses connections.
const CLOSED = "http://127.0.0.1:9";

const COMMANDS = [
  "deploy",
  "validate",
  "compat",
  "channels",
  "channels set",
  "channels delete",
  "channels status",
  "promote",
  "definitions",
  "definitions get",
  "run",
  "instances",
  "get",
  "object",
  "logs",
  "pause",
  "resume",
  "cancel",
  "retry",
  "upgrade",
  "worker",
  "tasks",
  "signal",
  "tokens",
  "tokens create",
  "tokens revoke",
  "openapi",
  "login",
  "logout",
  "health",
  "tick",
];

describe("baton without a server", () => {
  it("prints its version", async () => {
    const { env } = isolatedEnv();
    const version = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
    expect(await baton(["--version"], { env })).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  });

  it.each(COMMANDS)("has --help with examples for %s", async (command) => {
    const { env } = isolatedEnv();
    const run = await baton([...command.split(" "), "--help"], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: baton /);
    expect(run.stdout).toContain("Examples:\n  $ baton ");
  });

  it("names the URL it tried when the server is not running, exit 5, no stack", async () => {
    const { env } = isolatedEnv({ BATON_SERVER: CLOSED });
    const run = await baton(["instances"], { env });
    expect(run).toEqual({
      code: 5,
      stdout: "",
      stderr: `error: cannot reach the Baton server at ${CLOSED} (is it running? set --server or BATON_SERVER)\n`,
    });
  });

  it("uses the default server http://127.0.0.1:8449 when nothing else is set", async () => {
    const { env } = isolatedEnv();
    const run = await baton(["health"], { env });
    if (run.code === 5) expect(run.stderr).toContain("http://127.0.0.1:8449");
    else expect(run.code, "something answers on 8449 on this machine").toBe(0);
  });

  it("exits 2 on usage errors before any request", async () => {
    const { env } = isolatedEnv({ BATON_SERVER: CLOSED });
    for (const argv of [
      [],
      ["bogus"],
      ["run"],
      ["instances", "--limit", "500"],
      ["run", "x@0"],
      ["logs", "x", "--level", "loud"],
      ["deploy", "missing.yaml"],
    ]) {
      const run = await baton(argv, { env });
      expect(run.code, `baton ${argv.join(" ")}: ${run.stderr}`).toBe(2);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("refuses @last before this CLI started anything", async () => {
    const { env } = isolatedEnv({ BATON_SERVER: CLOSED });
    const run = await baton(["get", "@last"], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: @last is not set/);
  });

  it("login writes the config file with mode 0600 and logout removes it", async () => {
    const { env } = isolatedEnv();
    const login = await baton(["login", "--server", "http://127.0.0.1:9/", "--token", "svc_sk_test"], { env });
    expect(login.code).toBe(0);
    const file = path.join(env.XDG_CONFIG_HOME, "baton", "config.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ server: "http://127.0.0.1:9", token: "svc_sk_test" });

    const stored = await baton(["instances"], { env });
    expect(stored.stderr, "the stored server is used without flags").toContain("at http://127.0.0.1:9 ");
    const overridden = await baton(["instances"], { env: { ...env, BATON_SERVER: "http://127.0.0.1:7" } });
    expect(overridden.stderr, "BATON_SERVER wins over the config file").toContain("at http://127.0.0.1:7 ");

    expect(await baton(["logout", "--json"], { env })).toMatchObject({ code: 0, stdout: '{\n  "removed": true\n}\n' });
    expect((await baton(["logout"], { env })).stdout).toBe("not logged in; nothing to remove\n");
  });

  it("reports a broken definition file with file and line, exit 1", async () => {
    const { env, home } = isolatedEnv({ BATON_SERVER: CLOSED });
    const dir = path.join(home, "defs");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "bad.yaml"), "name: x\ntasks: [\n");
    const run = await baton(["deploy", "defs/bad.yaml"], { env, cwd: home });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: defs\/bad\.yaml:\d+:\d+: /);
  });

  it("refuses a YAML file whose aliases expand beyond 16 MiB, before any upload, with the file and line", async () => {
    const { env, home } = isolatedEnv({ BATON_SERVER: CLOSED });
    const big = "x".repeat(1024 * 1024);
    const aliases = Array.from({ length: 99 }, (_, i) => `    a${i}: *big`).join("\n");
    writeFileSync(
      path.join(home, "bomb.yaml"),
      `name: bomb\ntasks:\n  - id: t\n    output:\n      big: &big "${big}"\n${aliases}\n`,
    );
    const run = await baton(["validate", "bomb.yaml"], { env, cwd: home });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: bomb\.yaml:1: document 1 expands to more than 16 MiB of JSON once its aliases are resolved/,
    );
    expect(run.stderr, "it never tried the server").not.toContain("cannot reach");
  });
});
