import type { ViteUserConfig } from "vitest/config";

type TestOptions = NonNullable<ViteUserConfig["test"]>;

/**
 * The test settings every package shares. The JSON report is what scripts/test-summary.mjs
 * sums into CI's closing "N passed, N failed" line, one file per database engine.
 */
export function packageTestConfig(overrides: TestOptions = {}): ViteUserConfig {
  return {
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      reporters: ["default", "json"],
      outputFile: { json: `.test-results/vitest-${process.env.DATABASE_URL ? "postgres" : "pglite"}.json` },
      // A hang guard, not a speed check: under CI's load an in-process test that opens its own
      // PGlite harness (migrations in WASM) has taken 16-32 s before its first assertion.
      testTimeout: 90_000,
      hookTimeout: 120_000,
      // Two test files at a time on CI's 2 cores (vitest's default there is one): a file spends
      // much of its wall time waiting on a spawned server, PostgreSQL or a poll, and two overlap
      // those waits (docs/performance.md "The test suite"). Every deadline in a test is a hang
      // guard sized for that load; `--maxWorkers=1` runs one file at a time.
      maxWorkers: 2,
      ...overrides,
    },
  };
}
