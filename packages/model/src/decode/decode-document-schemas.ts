// The definition-level schemas: $defs, input_schema (an object) and config_schema (flat).
import type { Schema } from "../definition.js";
import { defsCycles, describeDefsCycle } from "../defs-cycles.js";
import { isPlainObject } from "../json-kind.js";
import { MAP_KEY } from "../names.js";
import { joinPath } from "../problems.js";
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
  // Each cycle is reported at the entry it starts from (docs/language.md "Schemas").
  for (const cycle of defsCycles(out))
    report(sc, joinPath("$defs", cycle[0]!), `${describeDefsCycle(cycle)}; give the recursion a property or an item`);
  return out;
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
