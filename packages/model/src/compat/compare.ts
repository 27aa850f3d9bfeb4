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

/**
 * A gating upgrade finding, as the upgrade verb keeps it between checking and moving: what it
 * says, and the `from` tasks on which it blocks an instance (null: every task). It depends on
 * the two stored versions only, never on where instances sit, so it can be computed before the
 * tree is locked and applied to the positions read under the lock (docs/compat.md).
 */
export interface UpgradeGate extends CompatIssue {
  affects: string[] | null;
}

/** Every gating upgrade finding of moving from `from` to `to`; throws CompatTooLarge past `maxSteps`. */
export function upgradeGates(
  from: Definition,
  to: Definition,
  fromVersion: number | null,
  toVersion: number | null,
  maxSteps: number = DEFAULT_DEFINITION_LIMITS.maxCompatSteps,
): UpgradeGate[] {
  const gates: UpgradeGate[] = [];
  for (const f of upgradeFindings(from, to, fromVersion, toVersion, compatBudget(maxSteps))) {
    if (!f.gating) continue;
    const { member, address, path, message, gating } = f;
    // A finding about every task (the stored input) is kept as null, not 10,000 task ids.
    const everyTask = new Set(f.affects).size >= from.tasks.length;
    gates.push({ member, address, path, message, gating, affects: everyTask ? null : f.affects });
  }
  return gates;
}

/**
 * The gates that concern an instance sitting on one of `sittingOn` (task ids of `from`), each
 * with the first of `sittingOn` it blocks. Linear in the gates' task lists.
 */
export function blockersOn(
  gates: readonly UpgradeGate[],
  sittingOn: readonly string[],
): Array<CompatIssue & { task: string }> {
  const order = new Map(sittingOn.map((task, i) => [task, i]));
  const out: Array<CompatIssue & { task: string }> = [];
  for (const { affects, ...issue } of gates) {
    let first = affects === null && sittingOn.length > 0 ? 0 : -1;
    for (const task of affects ?? []) {
      const i = order.get(task);
      if (i !== undefined && (first < 0 || i < first)) first = i;
    }
    if (first >= 0) out.push({ ...issue, task: sittingOn[first]! });
  }
  return out;
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
  return blockersOn(upgradeGates(from, to, fromVersion, toVersion, maxSteps), sittingOn);
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
  issues.push(...waitingEventIssues(from, to));
  return issues;
}

/**
 * The `external_task.waiting` event carries an external task's evaluated input (docs/events.md
 * "Event types"): a subscriber's contract, like the output. Each external task of both versions
 * must send no input the old one did not promise.
 */
function waitingEventIssues(from: Definition, to: Definition): CompatIssue[] {
  const issues: CompatIssue[] = [];
  const fromTyping = typeDefinition(from);
  const toTyping = typeDefinition(to);
  const names = { a: "the new task input", b: "the input the old version's event carried" };
  to.tasks.forEach((task, i) => {
    if (task.action?.type !== "external") return;
    const j = from.tasks.findIndex((t) => t.id === task.id && t.action?.type === "external");
    if (j < 0) return;
    const before = (fromTyping.tasks[j]?.payload ?? {}) as Schema;
    const after = (toTyping.tasks[i]?.payload ?? {}) as Schema;
    for (const issue of isSubschema(after, before, { aDefs: to.$defs, bDefs: from.$defs, names }).issues)
      issues.push({
        member: "contract",
        address: `tasks.${task.id}`,
        path: issue.path,
        message: `the external_task.waiting event's input may break what the old version sent: ${issue.message}`,
        gating: issue.certain,
      });
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
