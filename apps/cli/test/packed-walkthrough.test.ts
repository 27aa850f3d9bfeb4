import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnv } from "./support/baton.js";

// The README's walk-through, run as a new user would after "install the CLI from the package":
// the CLI and the worker SDK packed (scripts/pack.mjs), the CLI installed with `npm install -g`
// and the worker into an empty project, both offline, then the README's own shell blocks run by
// bash against a real server, and docs/worker.md's process answered by the installed SDK.
const run = promisify(execFile);
const root = fileURLToPath(new URL("../../../", import.meta.url));
const README = readFileSync(path.join(root, "README.md"), "utf8");
const WORKER_DOC = readFileSync(path.join(root, "docs", "worker.md"), "utf8");
const { env, home } = isolatedEnv();
const project = path.join(home, "project");
const prefix = path.join(home, "global");
let server: TestServer;

/** The fenced blocks of `lang` in `text` from the heading `from` to the next heading of its level. */
function blocks(text: string, from: string, lang: string): string[] {
  const start = text.indexOf(`\n${from}\n`);
  expect(start, `heading ${from}`).toBeGreaterThan(-1);
  const level = from.split(" ")[0];
  const rest = text.slice(start + from.length + 2);
  const end = rest.search(new RegExp(`\\n${level} `));
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, "g"))].map((m) => m[1]!);
}

async function pack(dir: string): Promise<string> {
  const { stdout } = await run(process.execPath, [path.join(root, dir, "scripts", "pack.mjs"), path.join(home, "out")]);
  return stdout.trim().split("\n").pop()!;
}

beforeAll(async () => {
  const npmEnv = {
    ...process.env,
    npm_config_cache: path.join(home, "npm-cache"),
    npm_config_update_notifier: "false",
  };
  const [cli, worker] = [await pack("apps/cli"), await pack("packages/worker")];
  await run("npm", ["install", "-g", "--offline", "--no-audit", "--no-fund", "--prefix", prefix, cli], { env: npmEnv });
  mkdirSync(project);
  await run("npm", ["init", "-y"], { cwd: project, env: npmEnv });
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", worker], { cwd: project, env: npmEnv });
  server = await startServer();
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

/** Runs a script with bash in the project, `baton` found on PATH where npm install -g put it. */
async function bash(script: string): Promise<{ stdout: string; stderr: string }> {
  // The README's server is the default address; here it is the test server's.
  const here = script.replaceAll("http://127.0.0.1:8449", server.url);
  return run("bash", ["-euo", "pipefail", "-c", here], {
    cwd: project,
    env: { ...env, PATH: `${path.join(prefix, "bin")}:${env.PATH}`, BATON_SERVER: server.url },
    timeout: 120_000,
  });
}

describe("the README walk-through with the packed CLI and worker", () => {
  it("documents installing the CLI from the package, and `baton` is on PATH after npm install -g", async () => {
    expect(README, "the README's second path").toContain("npm install -g ./out/baton-cli-");
    const { stdout } = await bash("command -v baton && baton --version");
    expect(stdout.split("\n")[0]).toBe(path.join(prefix, "bin", "baton"));
  });

  it("runs every command of the walk-through as printed, with the outputs its comments promise", async () => {
    const [build, fromPackage, ...walk] = blocks(README, "## Walk-through with the CLI", "bash");
    expect(build, "the first block builds the CLI in the clone").toContain("turbo run build --filter=@baton/cli");
    expect(fromPackage, "the second installs it from the package, as this test did").toContain("npm install -g");
    const { stdout } = await bash(walk.join("\n"));
    expect(stdout).toContain("greet v1 (new)");
    expect(stdout).toContain("greet v1 (unchanged)");
    expect(stdout.replace(/\s+/g, "")).toContain('{"said":"Hello,Ada"}');
    expect(stdout).toContain("health v1 (new)");
    expect(stdout.replace(/\s+/g, "")).toContain('{"status":"ok"}');
  });

  it("answers docs/worker.md's approval process with the installed @baton/worker", async () => {
    const [definition] = blocks(WORKER_DOC, "## A complete example", "yaml");
    writeFileSync(path.join(project, "approval.yaml"), definition!);
    // docs/worker.md's worker, as its Node 20 note says: a .mjs file without the types.
    writeFileSync(
      path.join(project, "worker.mjs"),
      `import { createWorker } from "@baton/worker";
const worker = createWorker({
  server: process.env.BATON_SERVER,
  process: "approval",
  task: "approve",
  // Long-polls until the task parks; stops once it answered one.
  onEvent: (event) => {
    if (event.type === "resolved") void worker.stop();
  },
  handler: async (task, { raise }) => {
    const { order_id, amount } = task.external_input;
    if (amount > 10_000) return raise("over_budget", { message: \`order \${order_id}\`, data: { limit: 10_000 } });
    return { approved: true, by: \`\${task.key}:\${task.attempt}\` };
  },
});
await worker.run();
`,
    );
    const { stdout } = await bash(
      [
        "baton deploy approval.yaml",
        "baton run approval --set order_id=A-1 --set amount=5 --key order-A-1 --quiet",
        "node worker.mjs",
        "until baton instances --key order-A-1 --status completed --json | grep -q order-A-1; do sleep 0.1; done",
        "baton instances --key order-A-1 --json",
      ].join("\n"),
    );
    expect(stdout).toContain("approval v1 (new)");
    const listed = JSON.parse(stdout.slice(stdout.indexOf("{")));
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0]).toMatchObject({ key: "order-A-1", status: "completed" });
    const detail = await bash(`baton get ${listed.items[0].id} --detail --json`);
    expect(detail.stdout, "the worker saw the task's business key and attempt").toContain("order-A-1:1");
  });
});
