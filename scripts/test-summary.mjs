#!/usr/bin/env node
// Sums every vitest JSON report (the .test-results folder of every workspace package listed in
// pnpm-workspace.yaml, nested ones such as apps/proxy/web included) into the one closing line
// CI reads: "N passed, N failed, N skipped". Exits 1 on any failure, on a report that says the
// run did not succeed, or when no test ran at all.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;

/** The workspace's package folders: each `packages:` entry, a trailing `/*` expanded one level. */
function workspacePackages() {
  const yaml = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8");
  const block = yaml.split(/^packages:\s*$/m)[1] ?? "";
  const entries = [];
  for (const line of block.split("\n")) {
    const m = /^\s+-\s+["']?([^"'\s#]+)["']?/.exec(line);
    if (m) entries.push(m[1]);
    else if (/^\S/.test(line)) break;
  }
  const dirs = [];
  for (const entry of entries) {
    if (!entry.endsWith("/*")) {
      dirs.push(entry);
      continue;
    }
    const parent = entry.slice(0, -2);
    if (!existsSync(join(root, parent))) continue;
    for (const name of readdirSync(join(root, parent), { withFileTypes: true })) if (name.isDirectory()) dirs.push(`${parent}/${name.name}`);
  }
  return [...new Set(dirs)].sort();
}

let passed = 0;
let failed = 0;
let skipped = 0;
let broken = 0;
for (const pkg of workspacePackages()) {
  const results = join(root, pkg, ".test-results");
  if (!existsSync(results)) continue;
  for (const file of readdirSync(results).filter((f) => f.endsWith(".json"))) {
    const report = JSON.parse(readFileSync(join(results, file), "utf8"));
    passed += report.numPassedTests ?? 0;
    failed += report.numFailedTests ?? 0;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    // A suite that failed to load (syntax error, failed beforeAll) counts no failed test.
    const suitesFailed = report.numFailedTestSuites ?? 0;
    if (suitesFailed > 0 && (report.numFailedTests ?? 0) === 0) broken += suitesFailed;
    console.log(`${pkg} ${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed${suitesFailed ? `, ${suitesFailed} failed files` : ""}`);
    // CI's log is often read only from its tail: name each failure here, not only in the runner's output above.
    for (const suite of report.testResults ?? []) {
      const where = suite.name.startsWith(root) ? suite.name.slice(root.length) : suite.name;
      const failedTests = (suite.assertionResults ?? []).filter((t) => t.status === "failed");
      for (const t of failedTests) console.log(`  FAILED ${where} > ${t.fullName ?? t.title}`);
      if (suite.status === "failed" && failedTests.length === 0) console.log(`  FAILED ${where} (did not run: ${(suite.message ?? "").split("\n")[0].slice(0, 200)})`);
    }
  }
}
failed += broken;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
