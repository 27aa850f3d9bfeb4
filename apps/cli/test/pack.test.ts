import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));

describe("the packed CLI", () => {
  it("installs from its tarball into an empty folder without network and runs baton --version", async () => {
    const work = mkdtempSync(path.join(tmpdir(), "baton-pack-"));
    const { stdout } = await run(process.execPath, [
      path.join(packageDir, "scripts", "pack.mjs"),
      path.join(work, "out"),
    ]);
    const tarball = stdout.trim().split("\n").pop()!;
    expect(path.basename(tarball)).toMatch(/^baton-cli-\d+\.\d+\.\d+\.tgz$/);

    const project = path.join(work, "project");
    const npmEnv = {
      ...process.env,
      npm_config_cache: path.join(work, "npm-cache"),
      npm_config_update_notifier: "false",
    };
    mkdirSync(project);
    await run("npm", ["init", "-y"], { cwd: project, env: npmEnv });
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: project, env: npmEnv });

    const installed = JSON.parse(
      readFileSync(path.join(project, "node_modules", "@baton", "cli", "package.json"), "utf8"),
    );
    expect(installed.dependencies, "a bundled CLI needs nothing from a registry").toBeUndefined();
    const modules = readdirSync(path.join(project, "node_modules")).filter((name) => !name.startsWith("."));
    expect(modules, "nothing but the CLI was installed").toEqual(["@baton"]);

    const version = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")).version;
    const bin = path.join(project, "node_modules", ".bin", "baton");
    const result = await run(bin, ["--version"], { cwd: project });
    expect(result.stdout).toBe(`${version}\n`);

    const help = await run(bin, ["deploy", "--help"], { cwd: project });
    expect(help.stdout).toContain("Examples:");
  }, 120_000);
});
