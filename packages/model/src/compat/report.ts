/** Which check found an issue (docs/compat.md). */
export type CompatMember = "upgrade" | "contract";

export interface CompatIssue {
  member: CompatMember;
  /** Where in the process: `tasks.<id>`, `tasks.<id>.output`, `tasks.<id>.action`, `input_schema`, `output`. */
  address: string;
  /** JSON pointer inside the schema at that address ("" for the whole thing). */
  path: string;
  message: string;
  /** Whether the issue makes its member incompatible; false for doubts the shape check cannot settle. */
  gating: boolean;
}

export interface CompatChange {
  address: string;
  /** The task id; null for a process-level address. */
  task: string | null;
}

/**
 * `compared`: both sides hold the process. `only_in_from` / `only_in_to`: one side lacks it, so
 * nothing could be compared (both members are reported compatible, with no issues).
 */
export type CompatStatus = "compared" | "only_in_from" | "only_in_to";

export interface CompatReport {
  name: string;
  status: CompatStatus;
  from: number | null;
  to: number | null;
  upgrade: { compatible: boolean };
  contract: { compatible: boolean };
  changed: CompatChange[];
  issues: CompatIssue[];
}

/** The report for a process present on only one side of a comparison. */
export function onlyOnOneSide(name: string, side: "from" | "to", version: number | null): CompatReport {
  return {
    name,
    status: side === "from" ? "only_in_from" : "only_in_to",
    from: side === "from" ? version : null,
    to: side === "to" ? version : null,
    upgrade: { compatible: true },
    contract: { compatible: true },
    changed: [],
    issues: [],
  };
}

/**
 * The report with the issues of `excused` members (the request's `ignore`) made non-gating, so
 * each issue agrees with `passes`; `upgrade`/`contract.compatible` still say what was found.
 */
export function excuseMembers(report: CompatReport, excused: ReadonlySet<string>): CompatReport {
  if (!report.issues.some((i) => i.gating && excused.has(i.member))) return report;
  return { ...report, issues: report.issues.map((i) => (excused.has(i.member) ? { ...i, gating: false } : i)) };
}
