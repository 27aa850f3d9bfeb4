import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { installPacked } from "@baton/pack";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));

describe("the packed CLI", () => {
  it("installs from its tarball into an empty folder without network and runs baton --version", async () => {
    const { tarball, project, manifest, modules } = await installPacked(packageDir, "@baton/cli");
    expect(path.basename(tarball)).toMatch(/^baton-cli-\d+\.\d+\.\d+\.tgz$/);
    expect(manifest.dependencies, "a bundled CLI needs nothing from a registry").toBeUndefined();
    expect(modules, "nothing but the CLI was installed").toEqual(["@baton"]);

    const version = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")).version;
    const bin = path.join(project, "node_modules", ".bin", "baton");
    const result = await run(bin, ["--version"], { cwd: project });
    expect(result.stdout).toBe(`${version}\n`);

    const help = await run(bin, ["deploy", "--help"], { cwd: project });
    expect(help.stdout).toContain("Examples:");
  }, 120_000);
});
