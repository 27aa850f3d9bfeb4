import type { Schema } from "./definition.js";
import { isPlainObject } from "./json-kind.js";
import { refName } from "./schema-subset.js";

/**
 * A self-contained copy of `schema` for places that cannot resolve `#/$defs/…` against the
 * definition (an OpenAPI document, an external task's claim): every `$ref` is replaced by the
 * schema it names (sibling keywords such as `description` kept). A recursive definition cannot
 * be inlined: its `$ref`s stay and the `$defs` they need are put at the top of the result.
 */
export function inlineRefs(schema: Schema, defs: Record<string, Schema> = {}): Schema {
  const own = isPlainObject(schema.$defs) ? (schema.$defs as Record<string, Schema>) : {};
  const all = { ...defs, ...own };
  const kept = new Set<string>();
  const walk = (s: unknown, stack: string[]): unknown => {
    if (Array.isArray(s)) return s.map((x) => walk(x, stack));
    if (!isPlainObject(s)) return s;
    const out: Record<string, unknown> = {};
    const name = typeof s.$ref === "string" ? refName(s.$ref) : undefined;
    if (name !== undefined && all[name] !== undefined) {
      if (stack.includes(name)) {
        kept.add(name);
        return { ...s };
      }
      const target = walk(all[name], [...stack, name]) as Record<string, unknown>;
      for (const [k, v] of Object.entries(s)) if (k !== "$ref") out[k] = walk(v, stack);
      return { ...target, ...out };
    }
    for (const [k, v] of Object.entries(s)) {
      if (k === "$defs") continue;
      // default and enum are values, not schemas: copied as they are.
      out[k] = k === "default" || k === "enum" ? v : walk(v, stack);
    }
    return out;
  };
  const result = walk(schema, []) as Schema;
  if (kept.size === 0) return result;
  // Inlining a kept definition may keep further ones: a Set's iteration visits names added meanwhile.
  const $defs: Record<string, Schema> = {};
  for (const name of kept) $defs[name] = walk(all[name], [name]) as Schema;
  return { ...result, $defs };
}
