// Over 300 lines on purpose: one analysis: the replay walk, its step budget and the findings it
// records share state, and its soundness argument reads top to bottom.
// The upgrade member (docs/compat.md): can an instance sitting on a task of `from` continue
// under `to`? Each finding records the sitting tasks it concerns, so an instance upgrade can
// refuse only for the tasks its tree actually sits on. Stored state is judged by what it can
// hold (conformed input, outputs as `from` typed them, `error` as `from` entered the task)
// against what `to` reads, where a missing key reads as null.
import { canonicalJson } from "../canonical.js";
import type { Action, Definition, Schema } from "../definition.js";
import { NO_INPUT } from "../infer.js";
import { outputFlow } from "../output-flow.js";
import { taskEdges } from "../reachability.js";
import { type DefinitionTyping, typeDefinition } from "../typing.js";
import { errorDataType } from "../typing-env.js";
import type { DefinitionProblem } from "../definition.js";
import type { CompatIssue } from "./report.js";
import { isSubschema } from "./subschema.js";
import type { CompatBudget } from "./budget.js";
import { mayRunAfter, reachableFromFirst, readIds, replay, sameFlow } from "./upgrade-flow.js";

export interface UpgradeFinding extends CompatIssue {
  member: "upgrade";
  /** Ids of the `from` tasks on which a sitting instance is affected. */
  affects: string[];
}

const PARKING = new Set(["external", "child", "child_map", "child_list", "delay"]);

export function upgradeFindings(
  from: Definition,
  to: Definition,
  fromVersion: number | null,
  toVersion: number | null,
  budget: CompatBudget,
): UpgradeFinding[] {
  const fromName = versionName(fromVersion, "the old definition");
  const toName = versionName(toVersion, "the new definition");
  const toIndex = new Map(to.tasks.map((t, i) => [t.id, i]));
  const fromTyping = typeDefinition(from);
  const toTyping = typeDefinition(to);
  const findings: UpgradeFinding[] = [];
  const allTasks = from.tasks.map((t) => t.id);

  for (const task of from.tasks) {
    const j = toIndex.get(task.id);
    if (j === undefined) {
      findings.push(
        finding(
          `tasks.${task.id}`,
          "",
          `task "${task.id}" does not exist in ${toName}; an instance sitting on it could not continue`,
          true,
          [task.id],
        ),
      );
      continue;
    }
    findings.push(...parkFindings(task.id, task.action, to.tasks[j].action, toName));
  }

  for (const i of storedInputIssues(from, to, { a: fromName, b: toName }))
    findings.push(
      finding(
        "input_schema",
        i.path,
        `the stored input (${fromName}) may not fit ${toName}: ${i.message}`,
        i.certain,
        allTasks,
      ),
    );

  findings.push(...storedOutputFindings(from, to, fromTyping, toTyping, fromName, toName, budget));
  findings.push(...mustSetFindings(from, to, fromName, toName, budget));
  findings.push(...errorFindings(from, to, toTyping, fromName, toName, budget));
  return findings;
}

function versionName(v: number | null, otherwise: string): string {
  return v === null ? otherwise : `version ${v}`;
}

function finding(address: string, path: string, message: string, gating: boolean, affects: string[]): UpgradeFinding {
  return { member: "upgrade", address, path, message, gating, affects };
}

/** Does the input schema of `to` accept every input `from` accepts (the stored input too)? */
export function inputIssues(from: Definition, to: Definition, names?: { a: string; b: string }) {
  return isSubschema(from.input_schema ?? NO_INPUT, to.input_schema ?? NO_INPUT, {
    aDefs: from.$defs,
    bDefs: to.$defs,
    names,
  }).issues;
}

/**
 * Does every input `from` may have stored read as `to` types `input`? The stored input was
 * conformed at start: defaults filled in, undeclared keys stripped (docs/compat.md).
 */
function storedInputIssues(from: Definition, to: Definition, names: { a: string; b: string }) {
  return isSubschema(from.input_schema ?? NO_INPUT, to.input_schema ?? NO_INPUT, {
    aDefs: from.$defs,
    bDefs: to.$defs,
    names,
    reading: { filled: true },
  }).issues;
}

/**
 * The `error` root on the sitting task: `to` types it as set where the task is entered only
 * through on_error; an instance that reached the task normally under `from` has none. `to` is
 * retyped with that task also entered normally, and every problem that retyping adds is a read
 * that breaks (a read guarded by `??` adds none). Where `from` may hold an error, its `data`
 * must read as `to` types it.
 */
function errorFindings(
  from: Definition,
  to: Definition,
  toTyping: DefinitionTyping,
  fromName: string,
  toName: string,
  budget: CompatBudget,
): UpgradeFinding[] {
  const fromFlow = outputFlow(from);
  const toFlow = outputFlow(to);
  const toIndex = new Map(to.tasks.map((t, i) => [t.id, i]));
  const known = new Set(toTyping.problems.map(problemKey));
  const findings: UpgradeFinding[] = [];
  from.tasks.forEach((task, x) => {
    const j = toIndex.get(task.id);
    if (j === undefined || !toFlow.errorTarget[j]) return;
    const mayLackError = !fromFlow.errorTarget[x] || fromFlow.normalEntry[x];
    if (mayLackError && !toFlow.normalEntry[j]) {
      // Typing a definition again: about as much work per task as a thousand steps elsewhere.
      budget.spend(to.tasks.length * 1000);
      const retyped = typeDefinition(to, (flow) => ({
        ...flow,
        normalEntry: flow.normalEntry.map((entered, k) => entered || k === j),
      }));
      const fresh = retyped.problems.filter((p) => !known.has(problemKey(p)));
      if (fresh.length > 0)
        findings.push(
          finding(
            `tasks.${task.id}`,
            "",
            `${toName} enters "${task.id}" only through on_error and reads \`error\` there as set, but an instance that reached "${task.id}" normally under ${fromName} has no error: ${fresh[0].path}: ${fresh[0].message}`,
            true,
            [task.id],
          ),
        );
    }
    if (!fromFlow.errorTarget[x]) return;
    const r = isSubschema(errorDataType(from, x) as Schema, errorDataType(to, j) as Schema, {
      aDefs: from.$defs,
      bDefs: to.$defs,
      names: { a: fromName, b: toName },
      reading: { filled: false },
    });
    for (const i of r.issues)
      findings.push(
        finding(
          `tasks.${task.id}`,
          `/error/data${i.path}`,
          `error.data as ${fromName} may have stored it on "${task.id}" may not fit what ${toName} reads: ${i.message}`,
          i.certain,
          [task.id],
        ),
      );
  });
  return findings;
}

function problemKey(p: DefinitionProblem): string {
  return `${p.path}|${p.message}`;
}

/** An instance parked on an external wait, children or a delay must find the same kind of park there. */
function parkFindings(id: string, was: Action | undefined, now: Action | undefined, toName: string): UpgradeFinding[] {
  if (was === undefined || !PARKING.has(was.type)) return [];
  const address = `tasks.${id}.action`;
  const nowType = now?.type ?? "none";
  if (now === undefined || now.type !== was.type)
    return [
      finding(
        address,
        "/type",
        `an instance parked on "${id}" waits for a ${was.type}; ${toName} makes it ${now === undefined ? "a routing-only task" : `a ${nowType}`}`,
        true,
        [id],
      ),
    ];
  if (
    (was.type === "child" || was.type === "child_list") &&
    (now.type === "child" || now.type === "child_list") &&
    was.name !== now.name
  )
    return [
      finding(
        address,
        "/name",
        `the children of "${id}" are "${was.name}" processes; ${toName} expects "${now.name}"`,
        true,
        [id],
      ),
    ];
  if (was.type === "child_map" && now.type === "child_map") {
    const a = Object.keys(was.children).sort().join(", ");
    const b = Object.keys(now.children).sort().join(", ");
    if (a !== b)
      return [
        finding(address, "/children", `the children of "${id}" are keyed ${a}; ${toName} expects ${b}`, true, [id]),
      ];
    for (const [key, spec] of Object.entries(was.children))
      if (spec.name !== now.children[key].name)
        return [
          finding(
            address,
            `/children/${key}/name`,
            `child "${key}" of "${id}" is a "${spec.name}" process; ${toName} expects "${now.children[key].name}"`,
            true,
            [id],
          ),
        ];
  }
  return [];
}

/** Every output `from` may have stored must fit the type `to` gives `outputs.<id>`. */
function storedOutputFindings(
  from: Definition,
  to: Definition,
  fromTyping: DefinitionTyping,
  toTyping: DefinitionTyping,
  fromName: string,
  toName: string,
  budget: CompatBudget,
): UpgradeFinding[] {
  const successors: number[][] = from.tasks.map(() => []);
  for (const e of taskEdges(from)) successors[e.from].push(e.to);
  const toIndex = new Map(to.tasks.map((t, i) => [t.id, i]));
  const findings: UpgradeFinding[] = [];
  from.tasks.forEach((task, x) => {
    const stored = fromTyping.tasks[x].output;
    const j = toIndex.get(task.id);
    if (stored === undefined || j === undefined) return;
    const read = toTyping.tasks[j].output;
    if (read === undefined) return;
    const r = isSubschema(stored as Schema, read as Schema, {
      aDefs: from.$defs,
      bDefs: to.$defs,
      names: { a: fromName, b: toName },
      reading: { filled: false },
    });
    if (r.issues.length === 0) return;
    // Only an output whose type changed needs the tasks it concerns: a walk of the flow from it.
    const after = mayRunAfter(successors, x, budget);
    const affects = from.tasks.filter((_, t) => after.has(t)).map((t) => t.id);
    if (affects.length === 0) return;
    for (const i of r.issues)
      findings.push(
        finding(
          `tasks.${task.id}.output`,
          i.path,
          `outputs.${task.id} as ${fromName} stored it may not fit what ${toName} reads: ${i.message}`,
          i.certain,
          affects,
        ),
      );
  });
  return findings;
}

/**
 * `to` types `outputs.<y>` as non-null at a task when every path into it ran y. An instance
 * that enters `to` mid-way, at task t, only has what `from` guaranteed on entry to t, so the
 * must-analysis is replayed in `to` from t with that set and compared with `to`'s own.
 */
function mustSetFindings(
  from: Definition,
  to: Definition,
  fromName: string,
  toName: string,
  budget: CompatBudget,
): UpgradeFinding[] {
  const toEdges = taskEdges(to);
  // The same tasks in the same order with the same edges: every instance brings exactly what
  // `to` guarantees wherever it sits, so the replay below would find nothing (and costs a set per
  // task, quadratic for a long chain).
  if (sameFlow(from, to, toEdges)) return [];
  const fromFlow = outputFlow(from);
  const toFlow = outputFlow(to);
  const toIndex = new Map(to.tasks.map((t, i) => [t.id, i]));
  const fromIndex = new Map(from.tasks.map((task, i) => [task.id, i]));
  const read = readIds(canonicalJson(to));
  const reachable = reachableFromFirst(to.tasks.length, toEdges);
  const byKey = new Map<string, UpgradeFinding>();
  from.tasks.forEach((task, t) => {
    const start = toIndex.get(task.id);
    if (start === undefined) return;
    // Nothing to find when the instance brings everything `to` itself guarantees on entry to a
    // task its first task reaches: every path on from there extends a path from the first task,
    // so whatever `to` assumes further on is set on it too. Only the other tasks are replayed.
    if (reachable[start]) {
      const assumed = [...toFlow.setOnEntry[start]];
      budget.spend(assumed.length + 1);
      const brought = (y: number) => {
        const x = fromIndex.get(to.tasks[y].id);
        return x !== undefined && fromFlow.setOnEntry[t].has(x);
      };
      if (assumed.every(brought)) return;
    }
    const initial = new Set<number>();
    for (const x of fromFlow.setOnEntry[t]) {
      const y = toIndex.get(from.tasks[x].id);
      if (y !== undefined) initial.add(y);
    }
    budget.spend(initial.size + 1);
    const entry = replay(to.tasks.length, toEdges, start, initial, budget);
    entry.forEach((have, d) => {
      if (have === undefined) return;
      const assumed = [...toFlow.setOnEntry[d]];
      budget.spend(assumed.length + 1);
      for (const y of assumed) {
        if (have.has(y) || !read.has(to.tasks[y].id)) continue;
        const yId = to.tasks[y].id;
        const dId = to.tasks[d].id;
        const key = `${dId}|${yId}`;
        const existing = byKey.get(key);
        if (existing !== undefined) {
          existing.affects.push(task.id);
          continue;
        }
        byKey.set(
          key,
          finding(
            `tasks.${dId}`,
            "",
            `${toName} reads outputs.${yId} as always set on entry to "${dId}", but an instance that was on "${task.id}" under ${fromName} may not have it`,
            true,
            [task.id],
          ),
        );
      }
    });
  });
  return [...byKey.values()];
}
