import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The size rule of docs/architecture.md ("Import rules"): a source file past 300 lines opens with the reason it
// is not split ("// Over 300 lines on purpose: …"), in every package of the workspace.

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const MAX_LINES = 300;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")
      ? [path]
      : [];
  });
}

/** `<group>/<name>/src` for every workspace package that has one, the proxy's web UI included. */
function sourceDirs(): string[] {
  const dirs = ["apps", "packages", "tooling"].flatMap((group) =>
    readdirSync(join(repoRoot, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${group}/${entry.name}/src`),
  );
  return [...dirs, "apps/proxy/web/src"].filter((dir) => existsSync(join(repoRoot, dir)));
}

describe("file length", () => {
  it("states at the top of every source file over 300 lines why it is that long", () => {
    const unexplained = sourceDirs().flatMap((dir) =>
      sourceFiles(join(repoRoot, dir)).flatMap((file) => {
        const lines = readFileSync(file, "utf8").split("\n");
        const length = lines.at(-1) === "" ? lines.length - 1 : lines.length;
        // The reason is the file's opening comment (a biome directive may come first).
        const opening = lines.find((line) => !line.startsWith("// biome-ignore")) ?? "";
        return length > MAX_LINES && !/^\/\/ Over \d+ lines/.test(opening)
          ? [`${relative(repoRoot, file)}: ${length} lines`]
          : [];
      }),
    );
    expect(unexplained).toEqual([]);
  });
});
