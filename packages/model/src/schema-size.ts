// How large a schema is written out, every `$ref` replaced by the `$defs` schema it names: what
// inlineRefs builds (an external task's claim, a process's OpenAPI document) and what the
// checker's type readers (typesOf, propertyType) walk through `anyOf`/`oneOf`. A few shared
// definitions that each refer to the next twice are tiny as text and 2^N nodes written out, so
// registration bounds this size (docs/limits.md, `--limit-type-nodes`).
import { isPlainObject } from "./json-kind.js";
import { refName } from "./schema-subset.js";

/**
 * Nodes (objects and arrays) of `schema` written out, counting stops (and the result is
 * `limit + 1`) as soon as it passes `limit`, so the work is at most `limit` visits whatever the
 * schema. A `$ref` to a definition being written out already (recursion) stays a `$ref`, as in
 * inlineRefs. `memo` keeps the size of each definition reached from the top (no definition being
 * written out around it, so its size does not depend on where it is met); pass the same map for
 * every schema of one definition.
 */
export function writtenOutNodes(
  schema: unknown,
  defs: Record<string, unknown>,
  limit: number,
  memo: Map<string, number>,
): number {
  let nodes = 0;
  const open = new Set<string>();
  const visit = (s: unknown): void => {
    if (nodes > limit) return;
    if (Array.isArray(s)) {
      nodes++;
      for (const x of s) visit(x);
      return;
    }
    if (!isPlainObject(s)) return;
    nodes++;
    const name = typeof s.$ref === "string" ? refName(s.$ref) : undefined;
    if (name !== undefined && Object.hasOwn(defs, name) && !open.has(name)) {
      const known = open.size === 0 ? memo.get(name) : undefined;
      if (known !== undefined) nodes += known;
      else {
        const before = nodes;
        const top = open.size === 0;
        open.add(name);
        visit(defs[name]);
        open.delete(name);
        if (top && nodes <= limit) memo.set(name, nodes - before);
      }
    }
    for (const [key, value] of Object.entries(s))
      if (key !== "$ref" && key !== "$defs" && key !== "default" && key !== "enum") visit(value);
  };
  visit(schema);
  return Math.min(nodes, limit + 1);
}
