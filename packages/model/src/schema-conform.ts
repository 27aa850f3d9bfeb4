import { isLosslessNumber, type Json, setKey } from "@baton/expr";
import type { Schema } from "./definition.js";
import { isPlainObject } from "./json-kind.js";
import { refName } from "./schema-subset.js";
import { validateValue } from "./schema-validate.js";

/**
 * A copy of `value` with defaults filled in and undeclared keys stripped. Keys are stripped
 * only where the object schema declares `properties` and no `additionalProperties`: `{}` and a
 * bare `{type: "object"}` pass their value on untouched. Values are copied as they are, so
 * LosslessNumbers survive. Conforming does not validate; validate the result afterwards.
 */
export function conformValue(schema: Schema, value: Json, defs?: Record<string, Schema>): Json {
  // The schema's own top-level $defs win over the definition's, as in rootSchema (what ajv sees).
  const own = isPlainObject(schema.$defs) ? (schema.$defs as Record<string, Schema>) : undefined;
  const all = own === undefined ? defs : { ...defs, ...own };
  return conform(schema, value, all, 0);
}

const MAX_REF_DEPTH = 64;

function resolve(schema: Schema, defs: Record<string, Schema> | undefined, depth: number): Schema | undefined {
  let s: Schema | undefined = schema;
  for (let i = 0; s !== undefined && typeof s.$ref === "string" && i + depth < MAX_REF_DEPTH; i++) {
    const name = refName(s.$ref as string);
    s = name === undefined ? undefined : defs?.[name];
  }
  return s;
}

function conform(schema: Schema, value: Json, defs: Record<string, Schema> | undefined, depth: number): Json {
  const s = resolve(schema, defs, depth);
  if (s === undefined || depth > MAX_REF_DEPTH) return value;
  const union = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (Array.isArray(union)) {
    // Conform by the first branch the value fits (after conforming by it), so defaults of that branch apply.
    for (const branch of union) {
      const candidate = conform(branch, value, defs, depth + 1);
      if (validateValue(branch, candidate, defs).length === 0) return conformOwn(s, candidate, defs, depth);
    }
    return conformOwn(s, value, defs, depth);
  }
  return conformOwn(s, value, defs, depth);
}

function conformOwn(s: Schema, value: Json, defs: Record<string, Schema> | undefined, depth: number): Json {
  if (Array.isArray(value)) {
    if (!isPlainObject(s.items)) return value.slice();
    const items = s.items as Schema;
    return value.map((v) => conform(items, v, defs, depth + 1));
  }
  if (!isPlainObject(value)) return value;
  const props = isPlainObject(s.properties) ? (s.properties as Record<string, Schema>) : undefined;
  const extra = isPlainObject(s.additionalProperties) ? (s.additionalProperties as Schema) : undefined;
  if (props === undefined && extra === undefined) return { ...(value as Record<string, Json>) };
  const out: Record<string, Json> = {};
  const obj = value as Record<string, Json>;
  for (const [k, v] of Object.entries(obj)) {
    if (props !== undefined && Object.hasOwn(props, k)) setKey(out, k, conform(props[k], v, defs, depth + 1));
    else if (extra !== undefined) setKey(out, k, conform(extra, v, defs, depth + 1));
    else if (props === undefined) setKey(out, k, v);
  }
  if (props !== undefined)
    for (const [k, sub] of Object.entries(props)) {
      if (Object.hasOwn(out, k)) continue;
      const dflt = sub.default !== undefined ? sub.default : resolve(sub, defs, depth + 1)?.default;
      if (dflt !== undefined) out[k] = conform(sub, copyJson(dflt as Json), defs, depth + 1);
    }
  return out;
}

/** A deep copy that keeps LosslessNumber instances (structuredClone would turn them into plain objects). */
function copyJson(v: Json): Json {
  if (Array.isArray(v)) return v.map(copyJson);
  if (v !== null && typeof v === "object" && !isLosslessNumber(v)) {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) setKey(out, k, copyJson(x as Json));
    return out;
  }
  return v;
}
