import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

// docker/build-images.sh, run without a Docker engine: a stand-in `docker` on PATH records each
// call and what its build context holds. The script runs in a fresh clone of this commit, as a
// release job would.
const run = promisify(execFile);
const root = fileURLToPath(new URL("../../../", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "baton-images-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("docker/build-images.sh", () => {
  it("builds both images from the committed tree alone, with the commit's time and tags", async () => {
    const clone = join(work, "clone");
    await run("git", ["clone", "--quiet", root, clone]);
    const bin = join(work, "bin");
    const calls = join(work, "calls.jsonl");
    await run("mkdir", ["-p", bin]);
    writeFileSync(
      join(bin, "docker"),
      `#!/bin/sh
context=""; for arg in "$@"; do context="$arg"; done
node -e 'const fs = require("node:fs"); const [calls, context, ...args] = process.argv.slice(1);
fs.appendFileSync(calls, JSON.stringify({ args, epoch: process.env.SOURCE_DATE_EPOCH, context: fs.readdirSync(context).sort() }) + "\\n")' "${calls}" "$context" "$@"
`,
    );
    chmodSync(join(bin, "docker"), 0o755);
    const { stdout } = await run("bash", [join(clone, "docker", "build-images.sh"), "registry.example.com/baton/"], {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    const commit = (await run("git", ["rev-parse", "--short=12", "HEAD"], { cwd: clone })).stdout.trim();
    const epoch = (await run("git", ["log", "-1", "--format=%ct"], { cwd: clone })).stdout.trim();
    const version = JSON.parse(readFileSync(join(clone, "apps/api/package.json"), "utf8")).version;
    const recorded = readFileSync(calls, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(recorded).toHaveLength(2);
    for (const [i, image] of ["api", "proxy"].entries()) {
      const { args, context } = recorded[i];
      expect(args.slice(0, 2)).toEqual(["buildx", "build"]);
      expect(args[args.indexOf("--file") + 1]).toMatch(new RegExp(`/docker/${image}\\.Dockerfile$`));
      expect(args).toContain(`SOURCE_DATE_EPOCH=${epoch}`);
      expect(args).toContain("type=docker,rewrite-timestamp=true");
      expect(args).toContain(`registry.example.com/baton/baton-${image}:${version}-${commit}`);
      expect(args).toContain(`org.opencontainers.image.revision=${commit}`);
      expect(context, "the committed tree: sources and the lockfile").toEqual(
        expect.arrayContaining(["apps", "docker", "package.json", "packages", "pnpm-lock.yaml"]),
      );
      expect(context, "nothing a checkout accumulates").not.toContain("node_modules");
      expect(stdout).toContain(`built registry.example.com/baton/baton-${image}:${version}-${commit}`);
    }
  });

  it("refuses a checkout with uncommitted changes, saying so", async () => {
    const clone = join(work, "dirty");
    await run("git", ["clone", "--quiet", root, clone]);
    writeFileSync(join(clone, "README.md"), "changed\n");
    const failed = await run("bash", [join(clone, "docker", "build-images.sh")]).then(
      () => "",
      (error: { stderr: string }) => error.stderr,
    );
    expect(failed).toContain("the checkout has uncommitted changes");
  });
});
