import type { CompatReport, CompatResponse } from "@baton/actions";
import type { Output } from "./output.js";

function version(value: number | null): string {
  return value === null || value === undefined ? "(files)" : `v${value}`;
}

/** Per process: the verdict, the changed tasks, then the issues with gating ones first. */
export function printCompatReport(out: Output, response: CompatResponse): void {
  const { style } = out;
  const reports = response.processes ?? [];
  if (reports.length === 0) out.print("no processes to compare");
  reports.forEach((report, i) => {
    if (i > 0) out.print("");
    out.print(style.bold(`${report.name} ${version(report.from)} → ${version(report.to)}`) + ` (${report.status})`);
    out.print(`  upgrade:  ${verdict(out, report.upgrade?.compatible)}`);
    out.print(`  contract: ${verdict(out, report.contract?.compatible)}`);
    printChanged(out, report);
    printIssues(out, report);
  });
  out.print("");
  const summary = response.passes
    ? style.green(response.compatible ? "compat passes" : "compat passes (ignored members are not compatible)")
    : style.red("compat does not pass");
  out.print(summary);
}

function verdict(out: Output, compatible: boolean | undefined): string {
  if (compatible === undefined) return "not compared";
  return compatible ? out.style.green("compatible") : out.style.red("incompatible");
}

function printChanged(out: Output, report: CompatReport): void {
  const changed = report.changed ?? [];
  if (changed.length === 0) {
    out.print("  changed tasks: none");
    return;
  }
  out.print("  changed tasks:");
  out.table(
    [{ header: "  TASK" }, { header: "ADDRESS" }],
    changed.map((change) => [`  ${change.task ?? "-"}`, change.address]),
  );
}

export function sortIssues(issues: CompatReport["issues"]): CompatReport["issues"] {
  return [...issues].sort((a, b) => Number(b.gating) - Number(a.gating));
}

function printIssues(out: Output, report: CompatReport): void {
  const issues = sortIssues(report.issues ?? []);
  if (issues.length === 0) {
    out.print("  issues: none");
    return;
  }
  out.print("  issues:");
  out.table(
    [{ header: "  GATING" }, { header: "MEMBER" }, { header: "ADDRESS" }, { header: "PATH" }, { header: "MESSAGE" }],
    issues.map((issue) => [
      { text: `  ${issue.gating ? "yes" : "no"}`, paint: issue.gating ? out.style.red : undefined },
      issue.member,
      issue.address,
      issue.path || "-",
      issue.message,
    ]),
  );
}
