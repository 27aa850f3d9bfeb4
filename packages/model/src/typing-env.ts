// The typing environment of each place an expression can sit (docs/language.md "Roots").
import { type JsonSchema, type TypeEnv, unionOf, unknownProperty } from "@baton/expr";
import type { Action, Definition, Schema } from "./definition.js";
import { isPlainObject } from "./json-kind.js";
import type { OutputFlow, TaskSet } from "./output-flow.js";
import { inlineRefs } from "./schema-inline.js";

export const UNKNOWN: JsonSchema = {};
export const NULL: JsonSchema = { type: "null" };
const STRING: JsonSchema = { type: "string" };

/** Where an expression sits decides what `self` holds: request payloads run before the action. */
export type Phase = "payload" | "output" | "switch";

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
 * With `flow`, its errorSources name those tasks; without, every task is scanned (O(tasks)).
 */
export function errorDataType(def: Definition, i: number, flow?: OutputFlow): JsonSchema {
  const target = `$${def.tasks[i].id}`;
  const sources =
    flow?.errorSources[i] ?? def.tasks.flatMap((t, k) => (t.on_error.some((r) => r.goto === target) ? [k] : []));
  const parts: JsonSchema[] = [NULL];
  for (const s of sources) {
    const source = def.tasks[s];
    const a = source.action;
    if (a?.type === "fetch" && a.responses !== undefined)
      for (const [status, schema] of Object.entries(a.responses))
        if (!status.startsWith("2")) parts.push(declared(schema) ?? NULL);
    if (a?.type === "external")
      for (const schema of Object.values(source.raises ?? {})) parts.push(declared(schema) ?? NULL);
    if (a?.type === "child" || a?.type === "child_map" || a?.type === "child_list") return UNKNOWN;
  }
  return unionOf(parts);
}

const FETCH_HEADERS: JsonSchema = { type: "object", additionalProperties: STRING };

/** Each task's output type and its nullable variant (computed once, not per environment). */
export interface OutputTypes {
  types: Array<JsonSchema | undefined>;
  nullable: Array<JsonSchema | undefined>;
}

export function outputTypes(types: Array<JsonSchema | undefined>): OutputTypes {
  return { types, nullable: types.map((t) => (t === undefined ? undefined : withNull(t))) };
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
      for (const [key, spec] of Object.entries(action.children))
        properties[key] = declared(spec.result_schema) ?? UNKNOWN;
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

export function withNull(t: JsonSchema): JsonSchema {
  return unionOf([t, NULL]);
}

/** What the checker wants to know of an environment's use. */
export interface EnvWatch {
  /** A large type was built on demand (the whole `outputs` root): for the checker's budget. */
  charge?: (type: JsonSchema) => void;
  /** The output type of task `task` was read (`"all"`: the whole `outputs` root). */
  read?: (task: number | "all") => void;
}

const baseRootsCache = new WeakMap<Definition, { roots: TypeEnv["roots"]; rootNotes: Record<string, string> }>();

/** `input` and `config`, computed once per definition (inlining `$defs` costs the schema's size). */
function baseRoots(def: Definition): { roots: TypeEnv["roots"]; rootNotes: Record<string, string> } {
  let base = baseRootsCache.get(def);
  if (base === undefined) {
    const roots: TypeEnv["roots"] = {};
    const rootNotes: Record<string, string> = {};
    if (def.input_schema !== undefined) roots.input = declared(def.input_schema);
    else rootNotes.input = "the process declares no input_schema";
    if (def.config_schema !== undefined) roots.config = declared(def.config_schema);
    else rootNotes.config = "the process declares no config_schema";
    baseRootsCache.set(def, (base = { roots, rootNotes }));
  }
  return { roots: { ...base.roots }, rootNotes: { ...base.rootNotes } };
}

/**
 * The `outputs` root: an object with a property per task that has an output type, non-null
 * where `set` says it was set on every path here. It has as many properties as the definition
 * has tasks, so it is built only when an expression reads `outputs` as a whole; `outputs.<id>`
 * is answered by `rootProperty` in O(1) (building it per environment was quadratic).
 */
function withOutputsRoot(
  env: TypeEnv,
  def: Definition,
  outputs: OutputTypes,
  set: TaskSet,
  watch: EnvWatch | undefined,
): TypeEnv {
  let whole: JsonSchema | undefined;
  Object.defineProperty(env.roots, "outputs", {
    enumerable: true,
    configurable: true,
    get: () => {
      if (whole === undefined) {
        whole = outputsType(def, outputs, set);
        watch?.charge?.(whole);
        watch?.read?.("all");
      }
      return whole;
    },
  });
  const index = taskIndex(def);
  env.rootProperty = (root, name, subject) => {
    if (root !== "outputs") return undefined;
    const i = index.get(name);
    if (i === undefined || outputs.types[i] === undefined)
      return unknownProperty(name, subject, outputKeys(def, outputs));
    return { type: set.has(i) ? outputs.types[i]! : outputs.nullable[i]! };
  };
  return env;
}

const taskIndexCache = new WeakMap<Definition, Map<string, number>>();

function taskIndex(def: Definition): Map<string, number> {
  let index = taskIndexCache.get(def);
  if (index === undefined) taskIndexCache.set(def, (index = new Map(def.tasks.map((t, i) => [t.id, i]))));
  return index;
}

const outputKeysCache = new WeakMap<OutputTypes, string[]>();

/** Ids of the tasks that have an output type (which tasks do is fixed for a definition: only types change). */
function outputKeys(def: Definition, outputs: OutputTypes): string[] {
  let keys = outputKeysCache.get(outputs);
  if (keys === undefined)
    outputKeysCache.set(outputs, (keys = def.tasks.filter((_, i) => outputs.types[i] !== undefined).map((t) => t.id)));
  return keys;
}

function outputsType(def: Definition, outputs: OutputTypes, set: TaskSet): JsonSchema {
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

/**
 * The environment of a place inside task `i` (see docs/language.md "Roots"), watched by `watch`.
 */
export function envFor(
  def: Definition,
  i: number,
  phase: Phase,
  outputs: OutputTypes,
  flow: OutputFlow,
  watch?: EnvWatch,
): TypeEnv {
  const task = def.tasks[i];
  const { roots, rootNotes } = baseRoots(def);
  const defs = def.$defs as TypeEnv["defs"];
  const env = withOutputsRoot({ roots, rootNotes, defs }, def, outputs, flow.setOnEntry[i], watch);
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
    const error = errorType(errorDataType(def, i, flow));
    roots.error = flow.normalEntry[i] ? withNull(error) : error;
  } else rootNotes.error = `task "${task.id}" is not the target of any on_error goto`;
  return env;
}

export function processEnv(def: Definition, outputs: OutputTypes, flow: OutputFlow, watch?: EnvWatch): TypeEnv {
  const { roots, rootNotes } = baseRoots(def);
  rootNotes.self = "the process output has no self";
  rootNotes.error = "the process output has no error";
  const defs = def.$defs as TypeEnv["defs"];
  return withOutputsRoot({ roots, rootNotes, defs }, def, outputs, flow.setAtCompletion, watch);
}

/** The roots of a process `concurrency.key`: evaluated before the first task, it sees `input` and `config` only. */
export function keyEnv(def: Definition): TypeEnv {
  const { roots, rootNotes } = baseRoots(def);
  const before = "a process concurrency key is evaluated before the first task and sees only input and config";
  rootNotes.outputs = before;
  rootNotes.self = before;
  rootNotes.error = before;
  return { roots, rootNotes, defs: def.$defs as TypeEnv["defs"] };
}
