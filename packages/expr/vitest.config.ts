import { defineConfig } from "vitest/config";

// The JSON report is summed by scripts/test-summary.mjs into CI's closing "N passed, N failed" line.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    reporters: ["default", "json"],
    outputFile: { json: `.test-results/vitest-${process.env.DATABASE_URL ? "postgres" : "pglite"}.json` },
    // Pure, stateless modules: sharing one module graph across test files cuts the run from
    // several seconds of worker start-up to about one second.
    pool: "threads",
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
