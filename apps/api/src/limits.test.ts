import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "./config.js";
import { DEFAULT_LIMITS, definitionLimitsOf, evalLimitFlag, evalLimitsOf, LIMITS } from "./limits.js";

const page = readFileSync(new URL("../../../docs/limits.md", import.meta.url), "utf8");

describe("the limits table", () => {
  it("is documented: docs/limits.md names every flag with its default", () => {
    for (const limit of LIMITS) expect(page, limit.flag).toContain(`| \`--${limit.flag}\` | \`${limit.default}\` |`);
  });

  it("documents each embedded-database default beside its flag", () => {
    for (const limit of LIMITS.filter((l) => l.pgliteDefault !== undefined))
      expect(page, limit.flag).toMatch(
        new RegExp(
          `\\| \`--${limit.flag}\` \\| \`${limit.default}\` \\| [^\\n]*\\(PGlite\\) the default is \`${limit.pgliteDefault}\``,
        ),
      );
  });

  it("gives every limit a safe default at or above its minimum", () => {
    for (const limit of LIMITS) expect(limit.default, limit.flag).toBeGreaterThanOrEqual(limit.min);
    expect(new Set(LIMITS.map((l) => l.flag)).size).toBe(LIMITS.length);
  });

  it("maps the server's values onto the evaluator's and the decoder's limits", () => {
    const limits = { ...DEFAULT_LIMITS, evalSteps: 5, definitionTasks: 7, patternLength: 9 };
    expect(evalLimitsOf(limits).maxSteps).toBe(5);
    expect(definitionLimitsOf(limits)).toMatchObject({ maxTasks: 7, maxPatternLength: 9 });
    expect(evalLimitFlag("value_size")).toBe("--limit-value-bytes");
  });
});

describe("the server flags that bound work outside the limits table", () => {
  it("are documented in docs/limits.md with their defaults", () => {
    for (const [flag, value] of [
      ["max-body", DEFAULT_CONFIG.maxBodyBytes],
      ["max-definition-body", DEFAULT_CONFIG.maxDefinitionBodyBytes],
      ["object-resolve-limit", DEFAULT_CONFIG.objectResolveLimitBytes],
      ["max-concurrent", DEFAULT_CONFIG.maxConcurrent],
    ] as const)
      expect(page, flag).toContain(`| \`--${flag}\` | \`${value}\` |`);
  });
});
