import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const SERVER_SUITES = "apps/api/test/server";

// AGENTS.md "Tests": the api's server suites sit in one folder per surface they test.
describe("the test layout", () => {
  it("keeps every server suite of apps/api in a folder named for its surface, none loose", () => {
    const loose = readdirSync(join(repoRoot, SERVER_SUITES), { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map(
        (entry) =>
          `${SERVER_SUITES}/${entry.name}: move it into the folder of the surface it tests (AGENTS.md "Tests")`,
      );
    expect(loose).toEqual([]);
  });

  it("names only test files that exist in docs/*.md, AGENTS.md and the READMEs", () => {
    const docs = [
      "AGENTS.md",
      "README.md",
      ...readdirSync(join(repoRoot, "docs"))
        .filter((name) => name.endsWith(".md"))
        .map((name) => `docs/${name}`),
    ];
    const missing: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(join(repoRoot, doc), "utf8");
      for (const [path] of text.matchAll(/\b(?:apps|packages|tooling)\/[\w./-]+\.test\.tsx?\b/g))
        if (!existsSync(join(repoRoot, path))) missing.push(`${doc}: ${path}`);
    }
    expect(missing).toEqual([]);
  });
});
