import {
  type Defs,
  INTEGER_TYPE,
  isUnknown,
  type JsonSchema,
  NULL_TYPE,
  NUMBER_TYPE,
  resolveSchema,
  BOOLEAN_TYPE,
  STRING_TYPE,
  typesOf,
  UNKNOWN,
  unionOf,
} from "./schema-types.js";
import { isIntegerNumber, isJsonNumber } from "./numbers.js";

// The types the checker (check.ts) and the shape checker build: of literals, object and array
// literals, arithmetic, and whether a type holds an unknown ({}) anywhere a read could reach.

/** The type of a literal JSON value. */
export function typeOfLiteral(value: unknown): JsonSchema {
  if (value === null) return NULL_TYPE;
  if (typeof value === "boolean") return BOOLEAN_TYPE;
  if (typeof value === "string") return STRING_TYPE;
  if (isJsonNumber(value)) return isIntegerNumber(value) ? INTEGER_TYPE : NUMBER_TYPE;
  return UNKNOWN;
}

/** `{type:"object", properties, required}` with every key required (object literals and shapes). */
export function objectType(properties: { [key: string]: JsonSchema }): JsonSchema {
  const keys = Object.keys(properties);
  return keys.length > 0 ? { type: "object", properties, required: keys } : { type: "object", properties: {} };
}

export function arrayType(items: JsonSchema[]): JsonSchema {
  const item = unionOf(items);
  return items.length === 0 || Object.keys(item).length === 0 ? { type: "array" } : { type: "array", items: item };
}

export function numericResult(left: JsonSchema, right: JsonSchema, defs: Defs): JsonSchema {
  const integerOnly = (s: JsonSchema) => {
    const types = typesOf(s, defs);
    return types !== null && [...types].every((t) => t === "integer" || t === "null");
  };
  return integerOnly(left) && integerOnly(right) ? INTEGER_TYPE : NUMBER_TYPE;
}

export function containsUnknown(schema: JsonSchema, defs: Defs, depth: number): boolean {
  const s = resolveSchema(schema, defs);
  if (isUnknown(s)) return true;
  if (depth > 16 || s.type !== undefined || s.properties !== undefined || s.items !== undefined) return false;
  const branches = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;
  return (
    branches?.some((b) => typeof b === "object" && b !== null && containsUnknown(b as JsonSchema, defs, depth + 1)) ??
    false
  );
}
