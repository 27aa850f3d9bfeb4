// axe-core, the accessibility engine (Deque's, MPL-2.0), run inside the page under test.

import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE_SCRIPT = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

export interface AxeViolation {
  id: string;
  impact: "minor" | "moderate" | "serious" | "critical" | null;
  help: string;
  /** Each offending element: its selector and what axe says is wrong with it. */
  nodes: { target: string[]; failureSummary: string }[];
}

/** Runs axe on the page as it is now (WCAG 2.x A and AA and axe's best practices) and returns its violations. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE_SCRIPT });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<unknown> } }).axe;
    const result = (await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] },
      resultTypes: ["violations"],
    })) as { violations: AxeViolation[] };
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
}

/** One line per violation and element, for a failure message that says what to fix. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id} (${v.help}) at ${n.target.join(" ")}: ${n.failureSummary}`))
    .join("\n");
}
