import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { docCitationProblems, docProseProblems } from "./doc-citations.js";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** `<group>/<name>` for every workspace package (apps, packages, tooling, the proxy's web UI). */
function workspaceDirs(): string[] {
  const dirs = ["apps", "packages", "tooling"].flatMap((group) =>
    readdirSync(join(repoRoot, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${group}/${entry.name}`),
  );
  return [...dirs, "apps/proxy/web"];
}

// The checker names the outside files in order to find them: its own two files are exempt.
const CHECKER = /^tooling\/testkit\/src\/doc-citations/;

describe("the repository explains itself", () => {
  it("code comments cite only docs/*.md, and every cited heading or rule name exists there", () => {
    const dirs = workspaceDirs()
      .flatMap((dir) => [`${dir}/src`, `${dir}/test`])
      .filter((dir) => existsSync(join(repoRoot, dir)));
    const problems = docCitationProblems(repoRoot, dirs).filter((p) => !CHECKER.test(p.file));
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.problem}: ${p.text}`)).toEqual([]);
  });

  it("docs, the READMEs and AGENTS.md state their rules themselves, never pointing outside the repository", () => {
    const files = [
      "README.md",
      "AGENTS.md",
      ...readdirSync(join(repoRoot, "docs"))
        .filter((name) => name.endsWith(".md"))
        .map((name) => `docs/${name}`),
      ...workspaceDirs().map((dir) => `${dir}/README.md`),
    ].filter((file) => existsSync(join(repoRoot, file)));
    const problems = docProseProblems(repoRoot, files);
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.problem}: ${p.text}`)).toEqual([]);
  });
});
