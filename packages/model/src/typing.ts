// Over 300 lines on purpose: each task kind's typing in its environment; the environment builder and
// its users change together.
// Static typing of a definition's expressions (docs/language.md "Roots", "Schemas"): checks each
// template, case and `over` in its environment with @baton/expr, and infers the type of every
// task output, payload and result.
import {
  checkShape,
  isLosslessNumber,
  type JsonSchema,
  type LosslessNumber,
  schemaSize,
  type TypeEnv,
} from "@baton/expr";
import type { Action, Definition, DefinitionProblem } from "./definition.js";
import { isPlainObject } from "./json-kind.js";
import { type DefinitionLimits, definitionLimits } from "./limits.js";
import { type OutputFlow, outputFlow } from "./output-flow.js";
import {
  type EnvWatch,
  envFor,
  keyEnv,
  NULL,
  type OutputTypes,
  outputTypes,
  type Phase,
  processEnv,
  resultType,
  UNKNOWN,
  withNull,
} from "./typing-env.js";
import { checkSite, compileAll, parseProcessKeySite, parseTaskSites, type Site } from "./typing-sites.js";

export { resultType } from "./typing-env.js";

export interface TaskTyping {
  /** What the action yields as `self.result`; absent for routing-only and delay tasks. */
  result?: JsonSchema;
  /** What the action sends: fetch body, external/child input, child_map inputs by key, child_list elements. */
  payload?: JsonSchema;
  /** What the task exports as `outputs.<id>`: its `output` shape, else an action's result. */
  output?: JsonSchema;
}

export interface DefinitionTyping {
  tasks: TaskTyping[];
  /** Type of the process `output` shape; absent when the definition has none. */
  processOutput?: JsonSchema;
  problems: DefinitionProblem[];
}

/** The type of no value at all: the start of the output fixpoint. */
const NOTHING: JsonSchema = { type: [] };
const MAX_ROUNDS = 8;

const typings = new WeakMap<Definition, DefinitionTyping>();

/**
 * Types every expression of a decoded definition. Memoised per definition object (decoding
 * types it to find problems, and validation asks again for the inferred schemas); a decoded
 * definition is never mutated.
 *
 * `adjustFlow` lets compat type `def` as if its tasks were entered otherwise (docs/compat.md:
 * an instance arriving from another version), e.g. a task that may now be entered without
 * `error`; such a typing is not memoised. `limits` bound the checker's work (docs/limits.md).
 */
export function typeDefinition(
  def: Definition,
  adjustFlow?: (flow: OutputFlow) => OutputFlow,
  limits?: Partial<DefinitionLimits>,
): DefinitionTyping {
  let typing = adjustFlow === undefined ? typings.get(def) : undefined;
  if (typing === undefined) {
    try {
      typing = typeUnbounded(def, definitionLimits(limits), adjustFlow);
    } catch (e) {
      if (!(e instanceof TypeBudgetExceeded)) throw e;
      typing = { tasks: def.tasks.map(() => ({})), problems: [e.problem] };
    }
    if (adjustFlow === undefined) typings.set(def, typing);
  }
  return typing;
}

/** Thrown out of the typing walk when an inferred type or the total passes its bound: checking stops. */
class TypeBudgetExceeded extends Error {
  constructor(readonly problem: DefinitionProblem) {
    super(problem.message);
  }
}

/**
 * Measures each inferred type before it is used further: a type built from shared parts can
 * be exponentially larger written out than the work that built it (an output holding the
 * previous output twice doubles with every task), and the outputs root has a property per task.
 */
function typeBudget(def: Definition, limits: DefinitionLimits) {
  let left = limits.maxCheckNodes;
  const refuse = (path: string, what: string, task?: string): never => {
    const p: DefinitionProblem = { path, message: what };
    if (def.name) p.process = def.name;
    if (task !== undefined) p.task = task;
    throw new TypeBudgetExceeded(p);
  };
  return {
    /** Charges `type` (inferred at `path`) against the per-type and total bounds. */
    charge(type: JsonSchema, path: string, task?: string): void {
      const size = schemaSize(type, limits.maxTypeNodes, limits.maxTypeDepth);
      if (size.nodes > limits.maxTypeNodes || size.height > limits.maxTypeDepth)
        refuse(
          path,
          `the type inferred here is larger than the checker allows (more than ${limits.maxTypeNodes} schema nodes or ${limits.maxTypeDepth} levels, docs/limits.md): an output that nests or repeats other outputs grows with every task — pass on only the fields needed`,
          task,
        );
      left -= size.nodes;
      if (left < 0)
        refuse(
          path,
          `the types inferred for this definition together exceed ${limits.maxCheckNodes} schema nodes (the checker's budget, docs/limits.md): outputs that copy other outputs or \`outputs\` as a whole grow with every task — pass on only the fields needed`,
          task,
        );
    },
  };
}

function typeUnbounded(
  def: Definition,
  limits: DefinitionLimits,
  adjustFlow: ((flow: OutputFlow) => OutputFlow) | undefined,
): DefinitionTyping {
  const budget = typeBudget(def, limits);
  const problems: DefinitionProblem[] = [];
  const add = (path: string, message: string, task?: string) => {
    const p: DefinitionProblem = { process: def.name || undefined, path, message };
    if (p.process === undefined) delete p.process;
    if (task !== undefined) p.task = task;
    problems.push(p);
  };
  const sites = def.tasks.map((task, i) => parseTaskSites(task, `tasks[${i}]`, (path, msg) => add(path, msg, task.id)));
  const processOutput =
    def.output === undefined ? undefined : compileAll(def.output, "output", (path, msg) => add(path, msg));
  const flow = adjustFlow === undefined ? outputFlow(def) : adjustFlow(outputFlow(def));

  const outputs = solveOutputTypes(def, sites, flow, budget);

  const tasks: TaskTyping[] = def.tasks.map((task, i) => {
    const typing: TaskTyping = {};
    const result = resultType(task.action);
    if (result !== undefined) typing.result = result;
    if (outputs.types[i] !== undefined) typing.output = outputs.types[i];
    const payloadParts: Record<string, JsonSchema> = {};
    const envs = new Map<Phase, TypeEnv>();
    for (const site of sites[i]) {
      let env = envs.get(site.phase);
      if (env === undefined)
        envs.set(
          site.phase,
          (env = envFor(def, i, site.phase, outputs, flow, {
            charge: (t) => budget.charge(t, `tasks[${i}]`, task.id),
          })),
        );
      const report = (path: string, message: string) => add(path, message, task.id);
      const type = checkSite(site, env, report);
      budget.charge(type, site.path, task.id);
      if (site.kind === "shape" && site.role === "payload") payloadParts[site.key ?? ""] = type;
      if (site.kind === "template" && site.want === "array" && task.action?.type === "child_list")
        payloadParts[""] = elementOf(type);
    }
    const payload = payloadOf(task.action, payloadParts);
    if (payload !== undefined) typing.payload = payload;
    return typing;
  });

  let processOutputType: JsonSchema | undefined;
  if (processOutput !== undefined) {
    const env = processEnv(def, outputs, flow, { charge: (t) => budget.charge(t, "output") });
    const r = checkShape(processOutput, env);
    budget.charge(r.type, "output");
    for (const p of r.problems) add(p.path, p.message);
    processOutputType = r.type;
  }
  if (def.concurrency?.key !== undefined) {
    const site = parseProcessKeySite(def.concurrency.key, (path, msg) => add(path, msg));
    if (site !== undefined)
      budget.charge(
        checkSite(site, keyEnv(def), (path, msg) => add(path, msg)),
        site.path,
      );
  }
  return { tasks, processOutput: processOutputType, problems };
}

/**
 * Output types feed each other through `outputs` and `self.previous` (loops), so they are
 * solved to a fixpoint from "no value yet" (NOTHING), which keeps loop counters integers.
 * Tasks are updated in order within a round, so a forward chain settles in one round.
 * A type still changing after MAX_ROUNDS (it grows, e.g. `[self.previous]`) becomes unknown.
 */
function solveOutputTypes(
  def: Definition,
  sites: Site[][],
  flow: OutputFlow,
  budget: ReturnType<typeof typeBudget>,
): OutputTypes {
  const current = outputTypes(def.tasks.map((t) => (t.output === undefined ? resultType(t.action) : NOTHING)));
  const set = (i: number, t: JsonSchema) => {
    current.types[i] = t;
    current.nullable[i] = withNull(t);
  };
  // An output is checked again only when a type it read changed since its last check (a
  // forward chain would otherwise be checked twice over): `reads` is what each check read —
  // task indexes (its own, for self.previous, always) or "all" for the whole outputs root.
  const reads: Array<Set<number> | "all" | undefined> = def.tasks.map(() => undefined);
  const changedAt = def.tasks.map(() => 0);
  const checkedAt = def.tasks.map(() => 0);
  let clock = 0;
  let lastChange = 0;
  const stale = (i: number): boolean => {
    const read = reads[i];
    if (read === undefined) return true;
    if (read === "all") return lastChange > checkedAt[i];
    for (const j of read) if (changedAt[j] > checkedAt[i]) return true;
    return false;
  };
  for (let r = 0; r < MAX_ROUNDS; r++) {
    const changed: number[] = [];
    def.tasks.forEach((task, i) => {
      // Without `output`, an action task exports its result (what the engine stores as outputs.<id>).
      if (task.output === undefined || !stale(i)) return;
      const site = sites[i].find((s) => s.kind === "shape" && s.role === "output");
      let read: Set<number> | "all" = new Set([i]);
      const watch: EnvWatch = {
        charge: (whole) => budget.charge(whole, site?.path ?? `tasks[${i}]`, task.id),
        read: (j) => {
          if (j === "all") read = "all";
          else if (read !== "all") read.add(j);
        },
      };
      const t =
        site === undefined || site.kind !== "shape"
          ? UNKNOWN
          : checkShape(site.shape, envFor(def, i, "output", current, flow, watch)).type;
      reads[i] = read;
      checkedAt[i] = ++clock;
      if (site !== undefined) budget.charge(t, site.path, task.id);
      if (current.types[i] !== undefined && sameJson(t, current.types[i])) return;
      set(i, t);
      changedAt[i] = lastChange = ++clock;
      changed.push(i);
    });
    if (changed.length === 0) break;
    if (r === MAX_ROUNDS - 1) for (const i of changed) set(i, UNKNOWN);
  }
  return outputTypes(current.types.map((t) => (t === undefined ? undefined : withoutNothing(t))));
}

/**
 * Whether two types are the same JSON (key order aside) — what comparing their canonical text
 * would say, without building it. Shared parts compare by identity first.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (isLosslessNumber(a) || isLosslessNumber(b))
    return isLosslessNumber(a) && isLosslessNumber(b) && (a as LosslessNumber).value === (b as LosslessNumber).value;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((x, i) => sameJson(x, other[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => x[k] !== undefined);
  if (keys.length !== Object.keys(y).filter((k) => y[k] !== undefined).length) return false;
  return keys.every((k) => Object.hasOwn(y, k) && sameJson(x[k], y[k]));
}

/** NOTHING left where no value ever flows (e.g. an output that only reads itself) reads as unknown. */
function withoutNothing(t: JsonSchema): JsonSchema {
  if (Array.isArray(t.type) && t.type.length === 0) return UNKNOWN;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(t)) {
    if (Array.isArray(v)) out[k] = v.map((x) => (isPlainObject(x) ? withoutNothing(x as JsonSchema) : x));
    else if (isPlainObject(v) && (k === "properties" || k === "$defs")) {
      const m: Record<string, unknown> = {};
      for (const [pk, pv] of Object.entries(v)) m[pk] = isPlainObject(pv) ? withoutNothing(pv as JsonSchema) : pv;
      out[k] = m;
    } else if (isPlainObject(v) && k !== "default" && k !== "enum") out[k] = withoutNothing(v as JsonSchema);
    else out[k] = v;
  }
  return out;
}

function elementOf(type: JsonSchema): JsonSchema {
  return isPlainObject(type.items) ? (type.items as JsonSchema) : UNKNOWN;
}

function payloadOf(action: Action | undefined, parts: Record<string, JsonSchema>): JsonSchema | undefined {
  if (action === undefined) return undefined;
  switch (action.type) {
    case "child_map": {
      const properties: Record<string, JsonSchema> = {};
      for (const key of Object.keys(action.children)) properties[key] = parts[key] ?? NULL;
      return { type: "object", properties, required: Object.keys(properties) };
    }
    case "delay":
      return undefined;
    case "fetch":
    case "external":
    case "child":
      return parts[""] ?? NULL;
    case "child_list":
      return parts[""] ?? UNKNOWN;
  }
}
