#!/usr/bin/env node
// Sums every vitest JSON report (apps/*/.test-results, packages/*/.test-results, tooling/*)
// into the one closing line CI reads: "N passed, N failed, N skipped". Exits 1 on any
// failure, on a report that says the run did not succeed, or when no test ran at all.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
let passed = 0;
let failed = 0;
let skipped = 0;
let broken = 0;
for (const group of ["apps", "packages", "tooling"]) {
  const dir = join(root, group);
  if (!existsSync(dir)) continue;
  for (const pkg of readdirSync(dir)) {
    const results = join(dir, pkg, ".test-results");
    if (!existsSync(results)) continue;
    for (const file of readdirSync(results).filter((f) => f.endsWith(".json"))) {
      const report = JSON.parse(readFileSync(join(results, file), "utf8"));
      passed += report.numPassedTests ?? 0;
      failed += report.numFailedTests ?? 0;
      skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
      // A suite that failed to load (syntax error, failed beforeAll) counts no failed test.
      const suitesFailed = report.numFailedTestSuites ?? 0;
      if (suitesFailed > 0 && (report.numFailedTests ?? 0) === 0) broken += suitesFailed;
      console.log(`${group}/${pkg} ${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed${suitesFailed ? `, ${suitesFailed} failed files` : ""}`);
    }
  }
}
failed += broken;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
