import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { spawnListening, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROXY_MAIN, requireBuilt } from "./support/proxy-process.js";

// Every flag of baton-proxy is also BATON_PROXY_<FLAG> (docs/deploy.md "Configuration from the
// environment"), a flag on the command line wins.
requireBuilt();
const run = promisify(execFile);
let api: TestServer;
beforeAll(async () => {
  api = await startServer();
});
afterAll(async () => {
  await api?.stop();
});

/** The environment without the variables a developer's shell may carry. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("BATON_"))) as Record<
    string,
    string
  >;
  return { ...env, ...extra };
}

describe("baton-proxy configured from the environment", () => {
  it("names a variable for every flag in --help, by the one rule", async () => {
    const { stdout } = await run(process.execPath, [PROXY_MAIN, "--help"], { env: cleanEnv({}) });
    const entries = stdout
      .slice(stdout.indexOf("Options:"))
      .split(/\n {2}(?=-)/)
      .slice(1)
      .map((entry) => entry.replace(/\s+/g, " "));
    const flags = entries.map((entry) => entry.split(" ")[0]!).filter((f) => f !== "--version" && f !== "-h,");
    expect(flags).toEqual(expect.arrayContaining(["--config", "--http", "--server"]));
    for (const flag of flags) {
      const variable = `BATON_PROXY_${flag.slice(2).replaceAll("-", "_").toUpperCase()}`;
      expect(
        entries.find((entry) => entry.startsWith(`${flag} `)),
        flag,
      ).toMatch(new RegExp(`env: ${variable}\\)`));
    }
  });

  it("starts from variables alone and forwards to the server they name; a flag wins over its variable", async () => {
    const proxy = await spawnListening(
      "baton-proxy",
      PROXY_MAIN,
      [],
      cleanEnv({ BATON_PROXY_HTTP: "127.0.0.1:0", BATON_PROXY_SERVER: api.url }),
      20_000,
    );
    try {
      expect((await fetch(new URL("/healthz", proxy.url))).status).toBe(200);
    } finally {
      await proxy.terminate();
    }
    const flagged = await spawnListening(
      "baton-proxy",
      PROXY_MAIN,
      ["--http", "127.0.0.1:0"],
      cleanEnv({ BATON_PROXY_HTTP: "not-an-address", BATON_PROXY_SERVER: api.url }),
      20_000,
    );
    await flagged.terminate();
  });
});
