// Over 300 lines on purpose: the type reading of each schema keyword; the keywords' readers call
// each other recursively.
// Reading JSON Schemas (the subset of docs/language.md "Schemas") as types for the checker. `{}` is the unknown
// type: anything can be passed on, any access yields unknown, and it is never reported.
import type { Json } from "./json.js";
import { isIntegerNumber, isJsonNumber } from "./numbers.js";

export type JsonSchema = { [keyword: string]: unknown };
export type Defs = { [name: string]: JsonSchema } | undefined;

/** "integer" means integers only; "number" means any number (integers included). */
export type JsonType = "null" | "boolean" | "string" | "integer" | "number" | "array" | "object";

const TYPE_ORDER: JsonType[] = ["object", "array", "string", "number", "integer", "boolean", "null"];
const REF_PREFIX = "#/$defs/";

export const UNKNOWN: JsonSchema = Object.freeze({}) as JsonSchema;
export const NULL_TYPE: JsonSchema = { type: "null" };
export const BOOLEAN_TYPE: JsonSchema = { type: "boolean" };
export const STRING_TYPE: JsonSchema = { type: "string" };
export const INTEGER_TYPE: JsonSchema = { type: "integer" };
export const NUMBER_TYPE: JsonSchema = { type: "number" };

const isObject = (v: unknown): v is JsonSchema => v !== null && typeof v === "object" && !Array.isArray(v);

/** Follows `$ref: "#/$defs/x"` through `defs`; an unresolvable ref is the unknown type. */
export function resolveSchema(schema: JsonSchema, defs: Defs): JsonSchema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === "string"; hops++) {
    const ref = current.$ref;
    const target = ref.startsWith(REF_PREFIX) && hops < 64 ? defs?.[ref.slice(REF_PREFIX.length)] : undefined;
    if (!isObject(target)) return UNKNOWN;
    current = target;
  }
  return current;
}

/** The set of JSON types a value of `schema` may have, or null when unknown. */
export function typesOf(schema: JsonSchema, defs: Defs): Set<JsonType> | null {
  const s = resolveSchema(schema, defs);
  if (typeof s.type === "string") return new Set([s.type as JsonType]);
  if (Array.isArray(s.type)) return new Set(s.type as JsonType[]);
  if (Array.isArray(s.enum)) return new Set((s.enum as Json[]).map(typeOfValue));
  const branches = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;
  if (branches) {
    const all = new Set<JsonType>();
    for (const branch of branches) {
      const types = isObject(branch) ? typesOf(branch, defs) : null;
      if (types === null) return null;
      for (const t of types) all.add(t);
    }
    return all;
  }
  return null;
}

function typeOfValue(value: Json): JsonType {
  if (value === null) return "null";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "string") return "string";
  if (isJsonNumber(value)) return isIntegerNumber(value) ? "integer" : "number";
  return Array.isArray(value) ? "array" : "object";
}

/** Whether a value of these types can be of type `t` (an integer is a number). */
export function admits(types: Set<JsonType>, t: JsonType): boolean {
  if (t === "integer") return types.has("integer") || types.has("number");
  if (t === "number") return types.has("number") || types.has("integer");
  return types.has(t);
}

/** Known types other than null that are not among `allowed` (numbers cover integers). */
export function typesOutside(types: Set<JsonType>, allowed: JsonType[]): JsonType[] {
  return [...types].filter((t) => t !== "null" && !allowed.some((a) => a === t || (a === "number" && t === "integer")));
}

/** `string`, `integer or null`, `unknown` — for messages. */
export function describeType(schema: JsonSchema, defs: Defs): string {
  const types = typesOf(schema, defs);
  if (types === null) return "unknown";
  if (types.size === 0) return "nothing";
  return TYPE_ORDER.filter((t) => types.has(t) && !(t === "integer" && types.has("number"))).join(" or ");
}

export function mayBeNull(schema: JsonSchema, defs: Defs): boolean {
  return typesOf(schema, defs)?.has("null") ?? false;
}

export function isUnknown(schema: JsonSchema): boolean {
  for (const key in schema) if (key !== "description" && key !== "default") return false;
  return true;
}

const isSimpleType = (s: JsonSchema) =>
  Object.keys(s).length === 1 && (typeof s.type === "string" || Array.isArray(s.type));

function typeList(s: JsonSchema): JsonType[] {
  return (Array.isArray(s.type) ? s.type : [s.type]) as JsonType[];
}

function simplifyTypes(types: JsonType[]): JsonSchema {
  const set = new Set(types);
  if (set.has("number")) set.delete("integer");
  const ordered = TYPE_ORDER.filter((t) => set.has(t));
  return { type: ordered.length === 1 ? ordered[0] : ordered };
}

const unionKeys = new WeakMap<JsonSchema, string>();

/**
 * The identity of a union member. Memoised per object: inferred types share subtrees, and
 * the same type is often united again and again (a type is a DAG; its text can be far larger).
 */
function unionKey(schema: JsonSchema): string {
  let key = unionKeys.get(schema);
  if (key === undefined) unionKeys.set(schema, (key = JSON.stringify(schema)));
  return key;
}

/**
 * The size of `schema` written out as JSON: its nodes (objects and arrays) and its height.
 * Inferred types share subtrees, so the written-out size can be exponential in the work that
 * built them; this takes time proportional to the distinct objects (memoised), and stops
 * counting past `maxNodes` nodes or `maxHeight` levels (the result then exceeds the bound).
 */
export function schemaSize(schema: unknown, maxNodes: number, maxHeight: number): { nodes: number; height: number } {
  const seen = new Map<object, { nodes: number; height: number }>();
  const measure = (value: unknown, depth: number): { nodes: number; height: number } => {
    if (value === null || typeof value !== "object") return { nodes: 0, height: 0 };
    const known = seen.get(value);
    if (known !== undefined) return known;
    const size = { nodes: 1, height: 1 };
    if (depth >= maxHeight) size.height = maxHeight + 1;
    else
      for (const child of Array.isArray(value) ? value : Object.values(value)) {
        const c = measure(child, depth + 1);
        size.nodes = Math.min(maxNodes + 1, size.nodes + c.nodes);
        size.height = Math.max(size.height, c.height + 1);
        if (size.nodes > maxNodes || size.height > maxHeight) break;
      }
    seen.set(value, size);
    return size;
  };
  return measure(schema, 0);
}

/** The type of a value that is one of `schemas`; `undefined` entries (impossible values) are ignored. */
export function unionOf(schemas: Array<JsonSchema | undefined>): JsonSchema {
  const members: JsonSchema[] = [];
  const seen = new Set<string>();
  for (const s of schemas) {
    if (s === undefined) continue;
    if (isUnknown(s)) return UNKNOWN;
    const branches = Object.keys(s).length === 1 && Array.isArray(s.anyOf) ? (s.anyOf as JsonSchema[]) : [s];
    for (const b of branches) {
      const key = unionKey(b);
      if (!seen.has(key)) {
        seen.add(key);
        members.push(b);
      }
    }
  }
  if (members.length === 0) return UNKNOWN;
  if (members.length === 1) return members[0];
  if (members.every(isSimpleType)) return simplifyTypes(members.flatMap(typeList));
  // Fold bare null branches into a typed branch: {type:["object","null"], properties…} reads better than anyOf.
  const nonNull = members.filter((m) => !(isSimpleType(m) && typeList(m).every((t) => t === "null")));
  if (nonNull.length === 1 && members.length === 2) return withNull(nonNull[0], undefined);
  return { anyOf: members };
}

/** `schema` widened to admit null. */
export function withNull(schema: JsonSchema, defs: Defs): JsonSchema {
  if (isUnknown(schema) || mayBeNull(schema, defs)) return schema;
  if (schema.type !== undefined && schema.$ref === undefined) {
    const widened: JsonSchema = { ...schema, type: [...typeList(schema), "null"] };
    if (Array.isArray(schema.enum)) widened.enum = [...schema.enum, null];
    return widened;
  }
  return { anyOf: [schema, NULL_TYPE] };
}

/** `schema` without null, or `undefined` when only null remains (the value can never be non-null). */
export function withoutNull(schema: JsonSchema, defs: Defs): JsonSchema | undefined {
  if (!mayBeNull(schema, defs)) return schema;
  const s = resolveSchema(schema, defs);
  if (s.type !== undefined) {
    const rest = typeList(s).filter((t) => t !== "null");
    if (rest.length === 0) return undefined;
    const narrowed: JsonSchema = { ...s, type: rest.length === 1 ? rest[0] : rest };
    if (Array.isArray(s.enum)) narrowed.enum = s.enum.filter((v) => v !== null);
    return narrowed;
  }
  if (Array.isArray(s.enum)) {
    const values = s.enum.filter((v) => v !== null);
    return values.length === 0 ? undefined : { ...s, enum: values };
  }
  const branches = (Array.isArray(s.anyOf) ? s.anyOf : s.oneOf) as JsonSchema[];
  return unionOf(branches.map((b) => withoutNull(b, defs)));
}

/** A problem reads `<what> at <position>, <expected>`. */
export type Lookup = { type: JsonSchema; problem?: { what: string; expected: string } };

function branchesOf(s: JsonSchema): JsonSchema[] | undefined {
  if (s.type !== undefined || s.properties !== undefined || s.items !== undefined) return undefined;
  return (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined) as JsonSchema[] | undefined;
}

/**
 * Combines per-branch lookups: fine if a non-null branch can answer (null branches read as
 * null but never vouch for a property); otherwise the first branch problem.
 */
function lookupInBranches(branches: JsonSchema[], lookup: (b: JsonSchema) => Lookup, defs: Defs): Lookup {
  const results = branches.map(lookup);
  const failed = results.find((r) => r.problem !== undefined);
  const answered = results.filter((r, i) => r.problem === undefined && !isNullOnly(branches[i], defs));
  if (failed && answered.length === 0) return failed;
  return { type: unionOf(results.filter((r) => r.problem === undefined).map((r) => r.type)) };
}

function isNullOnly(schema: JsonSchema, defs: Defs): boolean {
  const types = typesOf(schema, defs);
  return types !== null && types.size === 1 && types.has("null");
}

/** The type of `value.name` for a value of `schema`. A missing key reads as null. */
/** `subject` names the value in messages, e.g. `input.customer`. */
export function propertyType(schema: JsonSchema, name: string, defs: Defs, subject = "the value"): Lookup {
  const s = resolveSchema(schema, defs);
  const branches = branchesOf(s);
  if (branches) return lookupInBranches(branches, (b) => propertyType(b, name, defs, subject), defs);
  const types = typesOf(s, defs);
  if (types !== null && !types.has("object")) {
    if (types.size === 1 && types.has("null")) return { type: NULL_TYPE };
    return {
      type: UNKNOWN,
      problem: {
        what: `cannot read property "${name}" of ${subject}, which is ${describeType(s, defs)}`,
        expected: "expected an object",
      },
    };
  }
  const nullable = (t: JsonSchema) => withNull(t, defs);
  const properties = isObject(s.properties) ? s.properties : undefined;
  if (properties && Object.hasOwn(properties, name) && isObject(properties[name])) {
    const declared = properties[name] as JsonSchema;
    const required = Array.isArray(s.required) && s.required.includes(name);
    const defaulted = resolveSchema(declared, defs).default !== undefined;
    const maybeMissing = (!required && !defaulted) || types?.has("null") === true;
    return { type: maybeMissing ? nullable(declared) : declared };
  }
  const extra = s.additionalProperties;
  if (isObject(extra)) return { type: isUnknown(extra) ? UNKNOWN : nullable(extra) };
  if (extra === true || (properties === undefined && extra === undefined)) return { type: UNKNOWN };
  return unknownProperty(name, subject, properties ? Object.keys(properties) : []);
}

/** At most this many known properties are listed in a problem (an object may have thousands). */
const LISTED_PROPERTIES = 20;

/** The problem of reading `subject.name` where `subject` is an object with only `known` properties. */
export function unknownProperty(name: string, subject: string, known: readonly string[]): Lookup {
  const listed =
    known.length > LISTED_PROPERTIES
      ? `${known.slice(0, LISTED_PROPERTIES).join(", ")} and ${known.length - LISTED_PROPERTIES} more`
      : known.join(", ");
  return {
    type: UNKNOWN,
    problem: {
      what: `unknown property "${name}" of ${subject}`,
      expected:
        known.length > 0
          ? `expected one of its known properties: ${listed}`
          : "expected no property access: the object declares no properties",
    },
  };
}

/** The type of `value[i]` for an array `schema`; out of range reads as null. */
export function itemType(schema: JsonSchema, defs: Defs, subject = "the value"): Lookup {
  const s = resolveSchema(schema, defs);
  const branches = branchesOf(s);
  if (branches) return lookupInBranches(branches, (b) => itemType(b, defs, subject), defs);
  const types = typesOf(s, defs);
  if (types !== null && !types.has("array")) {
    if (types.size === 1 && types.has("null")) return { type: NULL_TYPE };
    return {
      type: UNKNOWN,
      problem: {
        what: `cannot index ${subject} with a number: it is ${describeType(s, defs)}`,
        expected: "expected an array",
      },
    };
  }
  return { type: isObject(s.items) && !isUnknown(s.items) ? withNull(s.items, defs) : UNKNOWN };
}

/** The element type of an array `schema` (what `map` binds), without the out-of-range null. */
export function elementType(schema: JsonSchema, defs: Defs): JsonSchema {
  const s = resolveSchema(schema, defs);
  const branches = branchesOf(s);
  if (branches)
    return unionOf(branches.filter((b) => typesOf(b, defs)?.has("array") ?? true).map((b) => elementType(b, defs)));
  const types = typesOf(s, defs);
  if (types !== null && !types.has("array")) return UNKNOWN;
  return isObject(s.items) ? s.items : UNKNOWN;
}
