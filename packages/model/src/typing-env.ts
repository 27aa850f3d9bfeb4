// The typing environment of each place an expression can sit (LANGUAGE §3 "Roots").
import { type JsonSchema, type TypeEnv, unionOf } from "@baton/expr";
import type { Action, Definition, Schema } from "./definition.js";
import { isPlainObject } from "./json-kind.js";
import type { OutputFlow } from "./output-flow.js";
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
 */
export function errorDataType(def: Definition, i: number): JsonSchema {
  const target = `$${def.tasks[i].id}`;
  const parts: JsonSchema[] = [NULL];
  for (const source of def.tasks) {
    if (!source.on_error.some((r) => r.goto === target)) continue;
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
export function envFor(def: Definition, i: number, phase: Phase, outputs: OutputTypes, flow: OutputFlow): TypeEnv {
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
  } else rootNotes.error = `task "${task.id}" is not the target of any on_error goto`;
  return { roots, rootNotes, defs: def.$defs as TypeEnv["defs"] };
}

export function processEnv(def: Definition, outputs: OutputTypes, flow: OutputFlow): TypeEnv {
  const { roots, rootNotes } = baseRoots(def);
  roots.outputs = outputsType(def, outputs, flow.setAtCompletion);
  rootNotes.self = "the process output has no self";
  rootNotes.error = "the process output has no error";
  return { roots, rootNotes, defs: def.$defs as TypeEnv["defs"] };
}
