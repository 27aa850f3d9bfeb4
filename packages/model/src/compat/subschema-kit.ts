import type { Schema } from "../definition.js";
import { refName, SCHEMA_KEYWORDS } from "../schema-subset.js";

// What the subset relation's cases share (subschema.ts, subschema-objects.ts): the issue they
// report, the context they pass down, and the small reads of a schema they all make.

export interface SubschemaIssue {
  /** JSON pointer into the schema, e.g. `/properties/amount` or `/items/minimum`. */
  path: string;
  message: string;
  /** True when some value is accepted by `a` and refused by `b`; false when the check could not prove it either way. */
  certain: boolean;
}

export type Defs = Record<string, Schema>;
export type JsonType = "null" | "boolean" | "string" | "integer" | "number" | "array" | "object";

export const ANNOTATIONS = new Set(["description", "default", "secret", "$defs"]);
// The constraining keywords of the schema subset: SCHEMA_KEYWORDS less the annotations.
export const KNOWN = new Set(SCHEMA_KEYWORDS.filter((k) => !ANNOTATIONS.has(k)));
export const NUMERIC: readonly JsonType[] = ["integer", "number"];

export interface Ctx {
  aDefs: Defs;
  bDefs: Defs;
  /** `$ref` pairs being compared: meeting one again assumes the recursive case holds (coinduction). */
  inProgress: Set<string>;
  reading?: { filled: boolean };
  /** The relation itself (subschema.ts `check`), for the cases that recurse into sub-schemas. */
  check(a: Schema, b: Schema, path: string, ctx: Ctx, out: SubschemaIssue[]): void;
}

export function constraining(s: Schema): string[] {
  return Object.keys(s).filter((k) => !ANNOTATIONS.has(k));
}

export function without(s: Schema, ...keys: string[]): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) if (!keys.includes(k)) out[k] = v;
  return out;
}

export function resolve(s: Schema, defs: Defs): { schema: Schema; ref?: string } | { missing: string } {
  if (typeof s.$ref !== "string") return { schema: s };
  const name = refName(s.$ref);
  const target = name === undefined ? undefined : defs[name];
  if (target === undefined) return { missing: s.$ref };
  return { schema: target, ref: name };
}

export const ALL_TYPES: JsonType[] = ["null", "boolean", "string", "integer", "number", "array", "object"];

export function typeList(s: Schema): JsonType[] | undefined {
  if (typeof s.type === "string") return [s.type as JsonType];
  if (Array.isArray(s.type)) return s.type as JsonType[];
  return undefined;
}

export function typeAccepted(t: JsonType, by: JsonType[]): boolean {
  return by.includes(t) || (t === "integer" && by.includes("number"));
}

export function num(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = Number(typeof v === "object" ? String((v as { value?: unknown }).value ?? v) : v);
  return Number.isFinite(n) ? n : undefined;
}

export function pointerEscape(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}

export function describe(s: Schema): string {
  const t = typeList(s);
  if (Array.isArray(s.enum)) return `one of ${JSON.stringify(s.enum)}`;
  if (t !== undefined) return t.join(" or ");
  if (typeof s.$ref === "string") return s.$ref;
  return "a constrained value";
}
