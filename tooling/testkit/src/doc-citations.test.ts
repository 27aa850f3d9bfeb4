import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { docCitationProblems } from "./doc-citations.js";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

describe("code comments cite docs/*.md", () => {
  it("in packages/actions and packages/model/src/compat: no SPEC, DESIGN or LANGUAGE, and every cited docs heading exists", () => {
    const problems = docCitationProblems(repoRoot, ["packages/actions/src", "packages/model/src/compat"]);
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.problem}: ${p.text}`)).toEqual([]);
  });
});
