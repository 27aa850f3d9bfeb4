// Static typing of a definition's expressions (LANGUAGE §3, §6 "Inference"): builds the
// typing environment of every place an expression can sit, checks each template, case and
// `over` with @baton/expr, and infers the type of every task output, payload and result.
import {
  type CompiledShape,
  checkCondition,
  checkShape,
  checkTemplate,
  compileShape,
  describeType,
  type Expr,
  ExprSyntaxError,
  type Json,
  type JsonSchema,
  parseExpression,
  parseTemplate,
  type Template,
  type TypeEnv,
  unionOf,
} from "@baton/expr";
import { stableStringify } from "./canonical.js";
import type { Action, Definition, DefinitionProblem, Schema, Task } from "./definition.js";
import { isDynamicDuration } from "./duration.js";
import { isPlainObject } from "./json-kind.js";
import { type OutputFlow, outputFlow } from "./output-flow.js";
import { joinPath } from "./problems.js";
import { inlineRefs } from "./schema-inline.js";

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

const UNKNOWN: JsonSchema = {};
/** The type of no value at all: the start of the output fixpoint. */
const NOTHING: JsonSchema = { type: [] };
const NULL: JsonSchema = { type: "null" };
const STRING: JsonSchema = { type: "string" };
const MAX_ROUNDS = 8;

/** The `error` root; `data` is what the failing tasks declare for it (see errorDataType). */
function errorType(data: JsonSchema): JsonSchema {
  return {
    type: "object",
    properties: {
      task: STRING,
      code: STRING,
      message: STRING,
      data,
      child_key: { type: ["string", "null"] },
      child_index: { type: ["integer", "null"] },
    },
    required: ["task", "code", "message"],
  };
}

/**
 * `error.data` in task `i`: the union of what each task with an on_error goto to it declares —
 * non-2xx `responses` of a fetch, `raises` of an external task; unknown for child tasks (a
 * child's raise carries its own data). Codes that carry no data leave it absent (null).
 */
function errorDataType(def: Definition, i: number): JsonSchema {
  const target = `$${def.tasks[i].id}`;
  const parts: JsonSchema[] = [NULL];
  for (const source of def.tasks) {
    if (!source.on_error.some((r) => r.goto === target)) continue;
    const a = source.action;
    if (a?.type === "fetch" && a.responses !== undefined)
      for (const [status, schema] of Object.entries(a.responses)) if (!status.startsWith("2")) parts.push(declared(schema) ?? NULL);
    if (a?.type === "external") for (const schema of Object.values(source.raises ?? {})) parts.push(declared(schema) ?? NULL);
    if (a?.type === "child" || a?.type === "child_map" || a?.type === "child_list") return UNKNOWN;
  }
  return unionOf(parts);
}

const FETCH_HEADERS: JsonSchema = { type: "object", additionalProperties: STRING };

type Phase = "payload" | "output" | "switch";

/** One parsed place of a task, with the phase whose environment checks it. */
type Site =
  | { kind: "shape"; phase: Phase; path: string; shape: CompiledShape; role: "payload" | "output" | "other"; key?: string }
  | { kind: "template"; phase: Phase; path: string; template: Template; want?: "string" | "number" | "array" }
  | { kind: "case"; phase: Phase; path: string; expr: Expr; source: string };

export function typeDefinition(def: Definition): DefinitionTyping {
  const problems: DefinitionProblem[] = [];
  const add = (path: string, message: string, task?: string) => {
    const p: DefinitionProblem = { process: def.name || undefined, path, message };
    if (p.process === undefined) delete p.process;
    if (task !== undefined) p.task = task;
    problems.push(p);
  };
  const sites = def.tasks.map((task, i) => parseTaskSites(task, `tasks[${i}]`, (path, msg) => add(path, msg, task.id)));
  const processOutput = def.output === undefined ? undefined : compileAll(def.output, "output", (path, msg) => add(path, msg));
  const flow = outputFlow(def);

  const outputs = solveOutputTypes(def, sites, flow);

  const tasks: TaskTyping[] = def.tasks.map((task, i) => {
    const typing: TaskTyping = {};
    const result = resultType(task.action);
    if (result !== undefined) typing.result = result;
    if (outputs.types[i] !== undefined) typing.output = outputs.types[i];
    const payloadParts: Record<string, JsonSchema> = {};
    const envs = new Map<Phase, TypeEnv>();
    for (const site of sites[i]) {
      let env = envs.get(site.phase);
      if (env === undefined) envs.set(site.phase, (env = envFor(def, i, site.phase, outputs, flow)));
      const report = (path: string, message: string) => add(path, message, task.id);
      const type = checkSite(site, env, report);
      if (site.kind === "shape" && site.role === "payload") payloadParts[site.key ?? ""] = type;
      if (site.kind === "template" && site.want === "array" && task.action?.type === "child_list") payloadParts[""] = elementOf(type);
    }
    const payload = payloadOf(task.action, payloadParts);
    if (payload !== undefined) typing.payload = payload;
    return typing;
  });

  let processOutputType: JsonSchema | undefined;
  if (processOutput !== undefined) {
    const env = processEnv(def, outputs, flow);
    const r = checkShape(processOutput, env);
    for (const p of r.problems) add(p.path, p.message);
    processOutputType = r.type;
  }
  return { tasks, processOutput: processOutputType, problems };
}

/** Each task's output type and its nullable variant (computed once, not per environment). */
interface OutputTypes {
  types: Array<JsonSchema | undefined>;
  nullable: Array<JsonSchema | undefined>;
}

function outputTypes(types: Array<JsonSchema | undefined>): OutputTypes {
  return { types, nullable: types.map((t) => (t === undefined ? undefined : withNull(t))) };
}

/**
 * Output types feed each other through `outputs` and `self.previous` (loops), so they are
 * solved to a fixpoint from "no value yet" (NOTHING), which keeps loop counters integers.
 * Tasks are updated in order within a round, so a forward chain settles in one round.
 * A type still changing after MAX_ROUNDS (it grows, e.g. `[self.previous]`) becomes unknown.
 */
function solveOutputTypes(def: Definition, sites: Site[][], flow: OutputFlow): OutputTypes {
  const current = outputTypes(def.tasks.map((t) => (t.output === undefined ? resultType(t.action) : NOTHING)));
  const key = (t: JsonSchema | undefined) => (t === undefined ? "-" : stableStringify(t));
  const keys = current.types.map(key);
  const set = (i: number, t: JsonSchema) => {
    current.types[i] = t;
    current.nullable[i] = withNull(t);
    keys[i] = key(t);
  };
  for (let r = 0; r < MAX_ROUNDS; r++) {
    const changed: number[] = [];
    def.tasks.forEach((task, i) => {
      // Without `output`, an action task exports its result (what the engine stores as outputs.<id>).
      if (task.output === undefined) return;
      const site = sites[i].find((s) => s.kind === "shape" && s.role === "output");
      const t = site === undefined || site.kind !== "shape" ? UNKNOWN : checkShape(site.shape, envFor(def, i, "output", current, flow)).type;
      if (key(t) === keys[i]) return;
      set(i, t);
      changed.push(i);
    });
    if (changed.length === 0) break;
    if (r === MAX_ROUNDS - 1) for (const i of changed) set(i, UNKNOWN);
  }
  return outputTypes(current.types.map((t) => (t === undefined ? undefined : withoutNothing(t))));
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

/** The type of `self.result`: declared schemas where given, else unknown. */
export function resultType(action: Action | undefined): JsonSchema | undefined {
  if (action === undefined) return undefined;
  switch (action.type) {
    case "fetch": {
      if (action.result_schema !== undefined) return declared(action.result_schema);
      if (action.responses !== undefined) {
        const ok = Object.entries(action.responses).filter(([status]) => status.startsWith("2"));
        if (ok.length === 0) return UNKNOWN;
        return unionOf(ok.map(([, s]) => declared(s) ?? NULL));
      }
      return UNKNOWN;
    }
    case "external":
    case "child":
      return declared(action.result_schema) ?? UNKNOWN;
    case "child_map": {
      const properties: Record<string, JsonSchema> = {};
      for (const [key, spec] of Object.entries(action.children)) properties[key] = declared(spec.result_schema) ?? UNKNOWN;
      return { type: "object", properties, required: Object.keys(properties) };
    }
    case "child_list":
      return { type: "array", items: declared(action.result_schema) ?? UNKNOWN };
    case "delay":
      return undefined;
  }
}

/**
 * A declared schema as the checker sees it: references to the schema's own top-level `$defs`
 * are inlined (the checker resolves `#/$defs/…` against the definition's `$defs` only).
 */
function declared<S extends Schema | null | undefined>(s: S): S {
  return s !== null && s !== undefined && isPlainObject(s.$defs) ? (inlineRefs(s) as S) : s;
}

function withNull(t: JsonSchema): JsonSchema {
  return unionOf([t, NULL]);
}

function baseRoots(def: Definition): { roots: TypeEnv["roots"]; rootNotes: Record<string, string> } {
  const roots: TypeEnv["roots"] = {};
  const rootNotes: Record<string, string> = {};
  if (def.input_schema !== undefined) roots.input = declared(def.input_schema);
  else rootNotes.input = "the process declares no input_schema";
  if (def.config_schema !== undefined) roots.config = declared(def.config_schema);
  else rootNotes.config = "the process declares no config_schema";
  return { roots, rootNotes };
}

function outputsType(def: Definition, outputs: OutputTypes, set: Set<number>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  def.tasks.forEach((task, i) => {
    const t = set.has(i) ? outputs.types[i] : outputs.nullable[i];
    if (t === undefined) return;
    // A task's output is null until it has run on this path.
    properties[task.id] = t;
    required.push(task.id);
  });
  return { type: "object", properties, required };
}

/** The environment of a place inside task `i` (see LANGUAGE §3 "Roots"). */
function envFor(def: Definition, i: number, phase: Phase, outputs: OutputTypes, flow: OutputFlow): TypeEnv {
  const task = def.tasks[i];
  const { roots, rootNotes } = baseRoots(def);
  roots.outputs = outputsType(def, outputs, flow.setOnEntry[i]);
  const self: Record<string, JsonSchema> = { previous: outputs.nullable[i] ?? NULL };
  if (phase !== "payload") {
    const result = resultType(task.action);
    if (result !== undefined) self.result = result;
    if (task.action?.type === "fetch") {
      self.status = { type: "integer" };
      self.headers = FETCH_HEADERS;
    }
  }
  if (phase === "switch" && outputs.types[i] !== undefined) self.output = outputs.types[i]!;
  roots.self = { type: "object", properties: self, required: Object.keys(self) };
  if (flow.errorTarget[i]) {
    const error = errorType(errorDataType(def, i));
    roots.error = flow.normalEntry[i] ? withNull(error) : error;
  }
  else rootNotes.error = `task "${task.id}" is not the target of any on_error goto`;
  return { roots, rootNotes, defs: def.$defs as TypeEnv["defs"] };
}

function processEnv(def: Definition, outputs: OutputTypes, flow: OutputFlow): TypeEnv {
  const { roots, rootNotes } = baseRoots(def);
  roots.outputs = outputsType(def, outputs, flow.setAtCompletion);
  rootNotes.self = "the process output has no self";
  rootNotes.error = "the process output has no error";
  return { roots, rootNotes, defs: def.$defs as TypeEnv["defs"] };
}

function checkSite(site: Site, env: TypeEnv, report: (path: string, message: string) => void): JsonSchema {
  switch (site.kind) {
    case "shape": {
      const r = checkShape(site.shape, env);
      for (const p of r.problems) report(p.path, p.message);
      return r.type;
    }
    case "case": {
      const r = checkCondition(site.expr, env, site.source);
      for (const p of r.problems) report(site.path, p.message);
      return r.type;
    }
    case "template": {
      const r = checkTemplate(site.template, env);
      for (const p of r.problems) report(site.path, p.message);
      if (site.want !== undefined && r.problems.length === 0) {
        const wanted = site.want === "number" ? ["number", "integer"] : [site.want];
        const types = typeNames(r.type, env);
        if (types !== undefined && !types.some((t) => wanted.includes(t)))
          report(site.path, `expected ${site.want === "array" ? "an array" : `a ${site.want}`} expression, got ${describeType(r.type, env.defs)}`);
      }
      return r.type;
    }
  }
}

function typeNames(t: JsonSchema, env: TypeEnv): string[] | undefined {
  const described = describeType(t, env.defs);
  if (described === "unknown") return undefined;
  if (described === "nothing") return [];
  return described.split(" or ").map((s) => s.trim());
}

/** Parses every template of `shape`, reporting each syntax error at its leaf; undefined when any failed. */
function compileAll(shape: Json | undefined, path: string, report: (path: string, message: string) => void): CompiledShape | undefined {
  if (shape === undefined) return undefined;
  let ok = true;
  const visit = (v: unknown, at: string) => {
    if (typeof v === "string") {
      try {
        parseTemplate(v);
      } catch (e) {
        if (!(e instanceof ExprSyntaxError)) throw e;
        report(at, e.message);
        ok = false;
      }
    } else if (Array.isArray(v)) for (const [i, x] of v.entries()) visit(x, joinPath(at, i));
    else if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) visit(x, joinPath(at, k));
  };
  visit(shape, path);
  return ok ? compileShape(shape, path) : undefined;
}

function parseTemplateAt(text: string, path: string, report: (path: string, message: string) => void): Template | undefined {
  try {
    return parseTemplate(text);
  } catch (e) {
    if (!(e instanceof ExprSyntaxError)) throw e;
    report(path, e.message);
    return undefined;
  }
}

/** Every expression-bearing place of a task, parsed; syntax errors are reported here. */
function parseTaskSites(task: Task, path: string, report: (path: string, message: string) => void): Site[] {
  const sites: Site[] = [];
  const shape = (value: Json | undefined, at: string, phase: Phase, role: "payload" | "output" | "other", key?: string) => {
    const compiled = compileAll(value, at, report);
    if (compiled !== undefined) sites.push({ kind: "shape", phase, path: at, shape: compiled, role, key });
  };
  const template = (text: string | number | undefined, at: string, want?: "string" | "number" | "array") => {
    if (typeof text !== "string") return;
    const t = parseTemplateAt(text, at, report);
    if (t !== undefined) sites.push({ kind: "template", phase: "payload", path: at, template: t, want });
  };
  const a = task.action;
  const ap = joinPath(path, "action");
  if (a !== undefined) {
    switch (a.type) {
      case "fetch":
        template(a.url, joinPath(ap, "url"), "string");
        if (a.headers !== undefined) shape(a.headers as Json, joinPath(ap, "headers"), "payload", "other");
        if (a.query !== undefined) shape(a.query as Json, joinPath(ap, "query"), "payload", "other");
        if (a.body !== undefined) shape(a.body, joinPath(ap, "body"), "payload", "payload");
        break;
      case "external":
        if (a.input !== undefined) shape(a.input, joinPath(ap, "input"), "payload", "payload");
        break;
      case "child":
        if (a.input !== undefined) shape(a.input, joinPath(ap, "input"), "payload", "payload");
        break;
      case "child_map":
        for (const [key, spec] of Object.entries(a.children))
          if (spec.input !== undefined) shape(spec.input, joinPath(joinPath(joinPath(ap, "children"), key), "input"), "payload", "payload", key);
        break;
      case "child_list":
        template(a.over, joinPath(ap, "over"), "array");
        break;
      case "delay":
        if (isDynamicDuration(a.for ?? "")) template(a.for, joinPath(ap, "for"), "number");
        if (isDynamicDuration(a.until ?? "")) template(a.until, joinPath(ap, "until"));
        break;
    }
    const timeout = "timeout" in a ? a.timeout : undefined;
    if (timeout !== undefined) {
      if (isDynamicDuration(timeout.for ?? "")) template(timeout.for, joinPath(joinPath(ap, "timeout"), "for"), "number");
      if (isDynamicDuration(timeout.until ?? "")) template(timeout.until, joinPath(joinPath(ap, "timeout"), "until"));
    }
  }
  if (task.output !== undefined) shape(task.output, joinPath(path, "output"), "output", "output");
  task.switch.forEach((c, j) => {
    // A "$:" case is already reported by the decoder; parsing it would only add a second problem.
    if (c.case === undefined || c.case.trimStart().startsWith("$:")) return;
    const at = joinPath(joinPath(joinPath(path, "switch"), j), "case");
    try {
      sites.push({ kind: "case", phase: "switch", path: at, expr: parseExpression(c.case), source: c.case });
    } catch (e) {
      if (!(e instanceof ExprSyntaxError)) throw e;
      report(at, e.message);
    }
  });
  return sites;
}
