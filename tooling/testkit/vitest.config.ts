import { defineConfig } from "vitest/config";

// The JSON report is summed by scripts/test-summary.mjs into CI's closing "N passed, N failed" line.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    reporters: ["default", "json"],
    outputFile: { json: `.test-results/vitest-${process.env.DATABASE_URL ? "postgres" : "pglite"}.json` },
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
