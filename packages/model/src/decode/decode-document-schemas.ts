// The definition-level schemas: $defs, input_schema (an object) and config_schema (flat).
import type { Schema } from "../definition.js";
import { isPlainObject } from "../json-kind.js";
import { MAP_KEY } from "../names.js";
import { joinPath } from "../problems.js";
import { refName } from "../schema-subset.js";
import { decodeSchema, expectObject, report, type Scope } from "./scope.js";

const CONFIG_TYPES = ["string", "number", "integer", "boolean"];

export function decodeDefs(sc: Scope, raw: unknown): Record<string, Schema> | undefined {
  const obj = expectObject(sc, raw, "$defs", "an object of name → schema");
  if (obj === undefined) return undefined;
  const out: Record<string, Schema> = {};
  for (const [name, schema] of Object.entries(obj)) {
    const at = joinPath("$defs", name);
    if (!MAP_KEY.test(name)) report(sc, at, `$defs name "${name}" must match ${MAP_KEY.source}`);
    const s = decodeSchema(sc, schema, at);
    if (s !== undefined) out[name] = s;
  }
  refusePlainRefCycles(sc, out);
  return out;
}

/** Keywords that describe no value: a schema of only these and `$ref` is the schema it names. */
const NOT_DESCRIBING = new Set(["$ref", "description", "default", "secret"]);

/**
 * Refuses `$defs` entries that are only a `$ref` and lead back to themselves through such entries
 * (`a: {$ref: a}`, or `a → b → a`): they describe no value, and resolving them never ends (the
 * validator overflowed its stack at every start, answering 500). Each entry names at most one
 * other, so one walk per chain finds every cycle: O(number of $defs).
 */
function refusePlainRefCycles(sc: Scope, defs: Record<string, Schema>): void {
  const next = (name: string): string | undefined => {
    const s = defs[name];
    if (typeof s.$ref !== "string" || !Object.keys(s).every((k) => NOT_DESCRIBING.has(k))) return undefined;
    const target = refName(s.$ref);
    return target !== undefined && Object.hasOwn(defs, target) ? target : undefined;
  };
  const state = new Map<string, "walking" | "done">();
  for (const start of Object.keys(defs)) {
    const path: string[] = [];
    let name: string | undefined = start;
    while (name !== undefined && !state.has(name)) {
      state.set(name, "walking");
      path.push(name);
      name = next(name);
    }
    if (name !== undefined && state.get(name) === "walking") {
      const cycle = path.slice(path.indexOf(name));
      report(
        sc,
        joinPath("$defs", name),
        `$defs ${[...cycle, name].map((n) => `"${n}"`).join(" → ")} only refer to each other and describe no value; give one of them a type or other keywords`,
      );
    }
    for (const n of path) state.set(n, "done");
  }
}

function typeNames(schema: Record<string, unknown>): string[] | undefined {
  if (typeof schema.type === "string") return [schema.type];
  return Array.isArray(schema.type) ? (schema.type as string[]) : undefined;
}

/** input_schema describes the instance input, which is always an object (docs/language.md "Schemas"). */
export function decodeObjectSchema(sc: Scope, raw: unknown, path: string): Schema | undefined {
  const s = decodeSchema(sc, raw, path);
  if (s === undefined) return undefined;
  const types = typeNames(s);
  if (types !== undefined && !types.includes("object"))
    report(sc, path, `${path} must describe an object (the instance input), got type ${JSON.stringify(s.type)}`);
  return s;
}

/** config_schema is flat: settings come from environment variables, so every property is a scalar. */
export function decodeConfigSchema(sc: Scope, raw: unknown): Schema | undefined {
  const s = decodeSchema(sc, raw, "config_schema");
  if (s === undefined) return undefined;
  const types = typeNames(s);
  if (types === undefined || types.length !== 1 || types[0] !== "object")
    report(sc, "config_schema", 'config_schema must be {type: "object", properties: {…}}');
  if (!isPlainObject(s.properties)) {
    report(sc, "config_schema", "config_schema needs properties (one per setting)");
    return s;
  }
  for (const [name, prop] of Object.entries(s.properties)) {
    const at = joinPath("config_schema.properties", name);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      report(sc, at, `setting "${name}" must be letters, digits and _ (it names an environment variable)`);
    if (!isPlainObject(prop)) continue;
    const t = typeNames(prop);
    if (t === undefined || t.some((x) => !CONFIG_TYPES.includes(x)))
      report(sc, at, `a setting must be a scalar (type ${CONFIG_TYPES.join(", ")}): config_schema is flat`);
  }
  return s;
}
