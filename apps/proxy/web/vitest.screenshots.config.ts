import { defineConfig } from "vitest/config";

// `pnpm run screenshots`: photographs the main pages for docs/ui/ (test/screenshots.run.ts).
// Apart from the test run: its file name does not end in .test.ts, so `vitest run` skips it.
export default defineConfig({
  test: { include: ["test/screenshots.run.ts"], testTimeout: 180_000, hookTimeout: 180_000 },
});
