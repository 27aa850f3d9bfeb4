// `$defs` that lead back to themselves without a property or an item in between (docs/language.md
// "Schemas"): registration refuses them (decode/decode-document-schemas.ts), and the API refuses
// to use a version stored before it did (apps/api definitions/stored-fault.ts).
import type { Schema } from "./definition.js";
import { isPlainObject } from "./json-kind.js";
import { refName } from "./schema-subset.js";

/**
 * The cycles among `defs` through `$ref`, `anyOf` and `oneOf` alone (`a: {$ref: a}`, `a → b → a`,
 * `a: {anyOf: [{$ref: a}, …]}`), each as its names from the first back to it again
 * (`["a", "b", "a"]`); empty when there are none. Such recursion describes no more than its other
 * branches, and resolving it never ends: the validator overflows its stack. Recursion through
 * `properties`, `items` or `additionalProperties` (a tree) is fine. Linear in the size of `defs`.
 */
export function defsCycles(defs: Record<string, Schema> | undefined): string[][] {
  if (defs === undefined) return [];
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
  const cycles: string[][] = [];
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
      if (state.get(target) === "open") cycles.push([...path.slice(path.indexOf(target)), target]);
      else if (!state.has(target)) {
        state.set(target, "open");
        path.push(target);
        next.push(0);
      }
    }
  }
  return cycles;
}

/** A cycle longer than this is named by its first entries only, so a message stays short. */
const NAMED_ENTRIES = 6;

/** What is wrong with one of defsCycles' cycles, as a sentence's subject and verb: `$defs "a" → "a" refer to …`. */
export function describeDefsCycle(cycle: string[]): string {
  const named =
    cycle.length <= NAMED_ENTRIES + 1
      ? cycle.map((n) => `"${n}"`).join(" → ")
      : `${cycle
          .slice(0, NAMED_ENTRIES)
          .map((n) => `"${n}"`)
          .join(" → ")} → … (${cycle.length - 1} entries in all) → "${cycle[0]}"`;
  return `$defs ${named} refer to each other through $ref, anyOf or oneOf alone, without a property or item in between, so they describe no value of their own`;
}
