// The strict JSON Schema subset of docs/language.md "Schemas". Everything else is refused by name, so
// a schema never silently means less than its author thought (e.g. an ignored `format`).
import { isLosslessNumber, type Json } from "@baton/expr";
import type { DefinitionProblem } from "./definition.js";
import { describeKind, isNonNegativeInteger, isPlainObject } from "./json-kind.js";
import { MAP_KEY } from "./names.js";
import { joinPath } from "./problems.js";
import { validateValue } from "./schema-validate.js";

export const SCHEMA_KEYWORDS: readonly string[] = [
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "oneOf",
  "anyOf",
  "enum",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "$ref",
  "$defs",
  "default",
  "description",
  "secret",
];

export const SCHEMA_TYPES: readonly string[] = ["string", "number", "integer", "boolean", "object", "array", "null"];

const REF = /^#\/\$defs\/(.+)$/;

export interface CheckSchemaOptions {
  /** Names that `#/$defs/<name>` may refer to besides the schema's own top-level `$defs`. When absent, references are not resolved. */
  defs?: readonly string[];
}

/** Problems of `schema` against the subset; `path` prefixes every problem path (e.g. `tasks[0].action.result_schema`). */
export function checkSchema(schema: unknown, path: string, options: CheckSchemaOptions = {}): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  const add = (at: string, message: string) => problems.push({ path: at, message });
  let known: Set<string> | undefined;
  if (options.defs !== undefined) {
    known = new Set(options.defs);
    if (isPlainObject(schema) && isPlainObject(schema.$defs)) for (const k of Object.keys(schema.$defs)) known.add(k);
  }
  walk(schema, path, true, known, add);
  // Only a well-formed schema can be compiled; a default that fails it would make every value
  // conformed with it invalid, so it is refused here rather than at each instance start.
  if (problems.length === 0) checkDefaults(schema as Record<string, unknown>, path, add);
  return problems;
}

function containsRef(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(containsRef);
  if (!isPlainObject(v)) return false;
  return Object.entries(v).some(([k, x]) => k === "$ref" || (k !== "default" && k !== "enum" && containsRef(x)));
}

function checkDefaults(
  schema: Record<string, unknown>,
  path: string,
  add: (path: string, message: string) => void,
): void {
  const visit = (s: unknown, at: string) => {
    if (!isPlainObject(s)) return;
    if (s.default !== undefined && !containsRef(s)) {
      const { default: dflt, ...rest } = s;
      for (const p of validateValue(rest, dflt as Json, undefined, "default"))
        add(joinPath(at, "default"), `the default does not match its own schema: ${p.path}: ${p.message}`);
    }
    for (const [k, x] of Object.entries(s)) {
      if (k === "properties" || k === "$defs") {
        if (isPlainObject(x)) for (const [name, sub] of Object.entries(x)) visit(sub, joinPath(joinPath(at, k), name));
      } else if (k === "items" || k === "additionalProperties") visit(x, joinPath(at, k));
      else if ((k === "oneOf" || k === "anyOf") && Array.isArray(x))
        for (const [i, sub] of x.entries()) visit(sub, joinPath(joinPath(at, k), i));
    }
  };
  visit(schema, path);
}

/** The name a `$ref` points at, or undefined when it is not of the form `#/$defs/<name>`. */
export function refName(ref: string): string | undefined {
  const m = REF.exec(ref);
  return m === null ? undefined : m[1];
}

function walk(
  schema: unknown,
  path: string,
  atRoot: boolean,
  known: Set<string> | undefined,
  add: (path: string, message: string) => void,
): void {
  if (typeof schema === "boolean") {
    add(path, `boolean schemas are not supported (got ${schema}); use {} for any value`);
    return;
  }
  if (!isPlainObject(schema)) {
    add(path, `expected a schema object, got ${describeKind(schema)}`);
    return;
  }
  for (const [key, value] of Object.entries(schema)) {
    const at = joinPath(path, key);
    switch (key) {
      case "type":
        checkType(value, at, add);
        break;
      case "properties":
        if (!isPlainObject(value)) add(at, `expected an object of property schemas, got ${describeKind(value)}`);
        else for (const [name, sub] of Object.entries(value)) walk(sub, joinPath(at, name), false, known, add);
        break;
      case "required":
        checkRequired(schema, value, at, add);
        break;
      case "additionalProperties":
        if (typeof value === "boolean")
          add(
            at,
            value
              ? "additionalProperties must be a schema: use {} to allow any extra value"
              : "additionalProperties must be a schema; undeclared keys are already stripped when it is absent",
          );
        else walk(value, at, false, known, add);
        break;
      case "items":
        if (Array.isArray(value)) add(at, "items must be one schema (tuple schemas are not supported)");
        else walk(value, at, false, known, add);
        break;
      case "oneOf":
      case "anyOf":
        if (!Array.isArray(value) || value.length === 0)
          add(at, `expected a non-empty array of schemas, got ${describeKind(value)}`);
        else
          value.forEach((sub, i) => {
            walk(sub, joinPath(at, i), false, known, add);
          });
        break;
      case "enum":
        if (!Array.isArray(value) || value.length === 0)
          add(at, `expected a non-empty array of values, got ${describeKind(value)}`);
        break;
      case "minimum":
      case "maximum":
        if (typeof value !== "number" && !isLosslessNumber(value))
          add(at, `expected a number, got ${describeKind(value)}`);
        break;
      case "minLength":
      case "maxLength":
      case "minItems":
      case "maxItems":
        if (!isNonNegativeInteger(value)) add(at, `expected a non-negative integer, got ${describeKind(value)}`);
        break;
      case "$ref":
        checkRef(value, at, known, add);
        break;
      case "$defs":
        if (!atRoot) add(at, "$defs is only allowed at the top of a schema (or at the top of the definition)");
        else if (!isPlainObject(value)) add(at, `expected an object of named schemas, got ${describeKind(value)}`);
        else
          for (const [name, sub] of Object.entries(value)) {
            if (!MAP_KEY.test(name)) add(joinPath(at, name), `$defs name "${name}" must match ${MAP_KEY.source}`);
            walk(sub, joinPath(at, name), false, known, add);
          }
        break;
      case "default":
        break;
      case "description":
        if (typeof value !== "string") add(at, `expected a string, got ${describeKind(value)}`);
        break;
      case "secret":
        if (typeof value !== "boolean") add(at, `expected a boolean, got ${describeKind(value)}`);
        break;
      default:
        add(path, `unknown field "${key}": not in the supported JSON Schema subset (${SCHEMA_KEYWORDS.join(", ")})`);
    }
  }
}

function checkType(value: unknown, at: string, add: (path: string, message: string) => void): void {
  const names = typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined;
  if (names === undefined || names.length === 0) {
    add(
      at,
      `expected a type name or a non-empty array of type names (${SCHEMA_TYPES.join(", ")}), got ${describeKind(value)}`,
    );
    return;
  }
  const seen = new Set<unknown>();
  for (const n of names) {
    if (typeof n !== "string" || !SCHEMA_TYPES.includes(n))
      add(at, `unknown type ${JSON.stringify(n)}; expected one of ${SCHEMA_TYPES.join(", ")}`);
    else if (seen.has(n)) add(at, `type "${n}" is listed twice`);
    seen.add(n);
  }
}

function checkRequired(
  schema: Record<string, unknown>,
  value: unknown,
  at: string,
  add: (path: string, message: string) => void,
): void {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    add(at, `expected an array of property names, got ${describeKind(value)}`);
    return;
  }
  const declared = isPlainObject(schema.properties) ? schema.properties : {};
  const seen = new Set<string>();
  for (const name of value as string[]) {
    if (seen.has(name)) add(at, `property "${name}" is required twice`);
    seen.add(name);
    // Conforming strips undeclared keys, so a required-but-undeclared property could never be present.
    if (!(name in declared) && schema.additionalProperties === undefined)
      add(at, `required property "${name}" is not declared in properties`);
  }
}

function checkRef(
  value: unknown,
  at: string,
  known: Set<string> | undefined,
  add: (path: string, message: string) => void,
): void {
  if (typeof value !== "string") {
    add(at, `expected a reference "#/$defs/<name>", got ${describeKind(value)}`);
    return;
  }
  const name = refName(value);
  if (name === undefined) add(at, `unsupported reference "${value}"; only "#/$defs/<name>" is allowed`);
  else if (known !== undefined && !known.has(name))
    add(
      at,
      `reference "${value}" names no schema in $defs${known.size > 0 ? ` (known: ${[...known].sort().join(", ")})` : ""}`,
    );
}
