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
  refuseUnguardedCycles(sc, out);
  return out;
}

/**
 * Refuses `$defs` that lead back to themselves without a property or an item in between —
 * through `$ref`, `anyOf` and `oneOf` alone (`a: {$ref: a}`, `a → b → a`,
 * `a: {anyOf: [{$ref: a}, …]}`): such recursion describes no more than its other branches, and
 * resolving it never ends (the validator overflowed its stack at every start, answering 500).
 * Recursion through `properties`, `items` or `additionalProperties` (a tree) is fine.
 */
function refuseUnguardedCycles(sc: Scope, defs: Record<string, Schema>): void {
  const edges = new Map<string, string[]>();
  for (const [name, schema] of Object.entries(defs)) {
    const out: string[] = [];
    const visit = (s: unknown): void => {
      if (!isPlainObject(s)) return;
      const target = typeof s.$ref === "string" ? refName(s.$ref) : undefined;
      if (target !== undefined && Object.hasOwn(defs, target)) out.push(target);
      for (const key of ["anyOf", "oneOf"]) if (Array.isArray(s[key])) for (const branch of s[key]) visit(branch);
    };
    visit(schema);
    edges.set(name, out);
  }
  // Depth-first, iteratively (a chain of 10,000 $defs must not overflow the stack here either).
  const state = new Map<string, "open" | "done">();
  for (const root of edges.keys()) {
    if (state.has(root)) continue;
    const path: string[] = [root];
    const next: number[] = [0];
    state.set(root, "open");
    while (path.length > 0) {
      const name = path[path.length - 1];
      const targets = edges.get(name)!;
      const i = next[next.length - 1]++;
      if (i >= targets.length) {
        state.set(name, "done");
        path.pop();
        next.pop();
        continue;
      }
      const target = targets[i];
      if (state.get(target) === "open") {
        const cycle = [...path.slice(path.indexOf(target)), target].map((n) => `"${n}"`).join(" → ");
        report(
          sc,
          joinPath("$defs", target),
          `$defs ${cycle} refer to each other through $ref, anyOf or oneOf alone, without a property or item in between, so they describe no value of their own; give the recursion a property or an item`,
        );
      } else if (!state.has(target)) {
        state.set(target, "open");
        path.push(target);
        next.push(0);
      }
    }
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
