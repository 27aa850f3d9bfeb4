// What `baton-api --version`, `--help` and `tokens --help` load (docs/performance.md
// "Start-up"): the flag table and nothing else. Each module the process loads is recorded by a
// module hook (node's `register`), so the test names the module that came in, without timing
// anything. Serving and the `tokens` subcommands import the rest when they run (main.ts).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { API_MAIN } from "@baton/testkit";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "baton-lean-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The hooks run on the loader's own thread: each URL is appended to the file named by LOADED_TO.
const hooks = join(dir, "hooks.mjs");
writeFileSync(
  hooks,
  `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_TO, url + "\\n");
  return next(url, context);
}
`,
);
const registerHooks = join(dir, "register.mjs");
writeFileSync(
  registerHooks,
  `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
);

/** The modules `node dist/main.js ...args` loaded, as package names and API file paths. */
async function loaded(args: string[], name: string): Promise<{ packages: string[]; apiFiles: string[] }> {
  const out = join(dir, `${name}.txt`);
  const env: Record<string, string> = { ...(process.env as Record<string, string>), LOADED_TO: out };
  delete env.DATABASE_URL;
  writeFileSync(out, "");
  await run(process.execPath, ["--import", pathToFileURL(registerHooks).href, API_MAIN, ...args], {
    env,
    timeout: 60_000,
  });
  const urls = readFileSync(out, "utf8").split("\n").filter(Boolean);
  const packages = new Set<string>();
  const apiFiles = new Set<string>();
  for (const url of urls) {
    if (url.startsWith("node:")) continue;
    const dep = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url);
    const api = /\/apps\/api\/dist\/(.*)$/.exec(url);
    if (dep) packages.add(dep[1]!.startsWith("@baton/") ? `${dep[1]}/${dep[2]}` : dep[1]!);
    else if (api) apiFiles.add(api[1]!);
    else packages.add(url.replace(/^.*\/(packages\/[^/]+)\//, "$1/"));
  }
  return { packages: [...packages].sort(), apiFiles: [...apiFiles].sort() };
}

// The flag table (flags.ts, limits.ts, config.ts, read-db-flags.ts) and the registration of the
// `tokens` subcommands. A module added here is loaded by every `--version`: keep it free of
// drivers, ajv, the engine and the HTTP stack.
const FLAG_TABLE = [
  "clock.js",
  "commands/database-options.js",
  "commands/tokens.js",
  "config.js",
  "flags.js",
  "format.js",
  "limits.js",
  "loggable-error.js",
  "main.js",
  "read-db-flags.js",
  "storage/database-timeouts.js",
  "tracing/index.js",
];

describe("start-up of baton-api loads only what the command needs", () => {
  for (const args of [["--version"], ["--help"], ["tokens", "--help"]]) {
    it(`${args.join(" ")} loads the flag table and no driver, engine or HTTP module`, async () => {
      const { packages, apiFiles } = await loaded(args, args.join("_"));
      expect(apiFiles.filter((f) => !FLAG_TABLE.includes(f))).toEqual([]);
      // Third-party packages: the command-line parser alone. Workspace packages: their subpaths
      // of constants (limits, durations, scope patterns, connection flags, log levels, flag variables).
      const thirdParty = packages.filter((p) => !p.startsWith("@baton/") && !p.startsWith("packages/"));
      expect(thirdParty).toEqual(["commander"]);
      const workspace = packages.filter((p) => p.startsWith("@baton/") || p.startsWith("packages/"));
      for (const p of workspace)
        expect(p, `${p} is a package index or a module with imports`).toMatch(
          /(expr\/dist\/eval-limits|model\/dist\/(limits|duration)|actions\/dist\/scope-rule|http-edge\/dist\/.*|log\/dist\/index|flag-env\/dist\/index)\.js$/,
        );
    });
  }
});
