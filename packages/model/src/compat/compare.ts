import { stableStringify } from "../canonical.js";
import type { Definition, Schema } from "../definition.js";
import { NO_OUTPUT } from "../infer.js";
import { typeDefinition } from "../typing.js";
import type { CompatChange, CompatIssue, CompatReport } from "./report.js";
import { isSubschema } from "./subschema.js";
import { DEFAULT_DEFINITION_LIMITS } from "../limits.js";
import { compatBudget } from "./budget.js";
import { inputIssues, type UpgradeFinding, upgradeFindings } from "./upgrade-check.js";

/**
 * docs/compat.md: the upgrade and contract members of moving from `from` to `to` (one process).
 * Throws CompatTooLarge past `maxSteps` of work (docs/limits.md).
 */
export function compareDefinitions(
  from: Definition,
  to: Definition,
  fromVersion: number | null,
  toVersion: number | null,
  maxSteps: number = DEFAULT_DEFINITION_LIMITS.maxCompatSteps,
): CompatReport {
  const upgrade = mergeFindings(upgradeFindings(from, to, fromVersion, toVersion, compatBudget(maxSteps)));
  const contract = contractIssues(from, to);
  const issues = [...upgrade, ...contract];
  return {
    name: to.name,
    status: "compared",
    from: fromVersion,
    to: toVersion,
    upgrade: { compatible: !upgrade.some((i) => i.gating) },
    contract: { compatible: !contract.some((i) => i.gating) },
    changed: changedAddresses(from, to),
    issues,
  };
}

/** The gating upgrade issues that concern an instance sitting on one of `sittingOn` (task ids of `from`). */
export function upgradeBlockers(
  from: Definition,
  to: Definition,
  fromVersion: number | null,
  toVersion: number | null,
  sittingOn: readonly string[],
  maxSteps: number = DEFAULT_DEFINITION_LIMITS.maxCompatSteps,
): Array<CompatIssue & { task: string }> {
  const out: Array<CompatIssue & { task: string }> = [];
  for (const f of upgradeFindings(from, to, fromVersion, toVersion, compatBudget(maxSteps))) {
    if (!f.gating) continue;
    const task = sittingOn.find((t) => f.affects.includes(t));
    if (task !== undefined)
      out.push({ member: f.member, address: f.address, path: f.path, message: f.message, gating: f.gating, task });
  }
  return out;
}

function mergeFindings(findings: UpgradeFinding[]): CompatIssue[] {
  return findings.map(({ member, address, path, message, gating }) => ({ member, address, path, message, gating }));
}

/** `to` must accept every input `from` accepts, and promise no output `from` did not. */
function contractIssues(from: Definition, to: Definition): CompatIssue[] {
  const issues: CompatIssue[] = [];
  for (const i of inputIssues(from, to, { a: "the old input schema", b: "the new input schema" }))
    issues.push({
      member: "contract",
      address: "input_schema",
      path: i.path,
      message: `an input the old version accepts may be refused: ${i.message}`,
      gating: i.certain,
    });
  const fromOut = (typeDefinition(from).processOutput ?? NO_OUTPUT) as Schema;
  const toOut = (typeDefinition(to).processOutput ?? NO_OUTPUT) as Schema;
  const names = { a: "the new output", b: "the promised output" };
  for (const i of isSubschema(toOut, fromOut, { aDefs: to.$defs, bDefs: from.$defs, names }).issues)
    issues.push({
      member: "contract",
      address: "output",
      path: i.path,
      message: `the output may break what the old version promised: ${i.message}`,
      gating: i.certain,
    });
  return issues;
}

const PROCESS_LEVEL = ["input_schema", "output", "config_schema", "$defs"] as const;

/** Tasks whose canonical JSON differs (or that exist on one side only), then process-level fields and the task order. */
export function changedAddresses(from: Definition, to: Definition): CompatChange[] {
  const changed: CompatChange[] = [];
  const fromTasks = new Map(from.tasks.map((t) => [t.id, stableStringify(t)]));
  const toTasks = new Map(to.tasks.map((t) => [t.id, stableStringify(t)]));
  const ids = [...fromTasks.keys(), ...[...toTasks.keys()].filter((id) => !fromTasks.has(id))];
  for (const id of ids) if (fromTasks.get(id) !== toTasks.get(id)) changed.push({ address: `tasks.${id}`, task: id });
  for (const key of PROCESS_LEVEL)
    if (stableStringify(from[key] ?? null) !== stableStringify(to[key] ?? null))
      changed.push({ address: key, task: null });
  if (from.tasks.map((t) => t.id).join("\u0000") !== to.tasks.map((t) => t.id).join("\u0000"))
    changed.push({ address: "tasks", task: null });
  return changed;
}
