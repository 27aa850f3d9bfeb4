// A form from a JSON Schema of the language's subset (docs/language.md "Schemas"): the result
// of an external task (its `result_schema`) or the data of one of its `raises` codes. Objects
// with `properties` are spread into one field per leaf (nested objects by dotted label);
// strings, numbers, integers, booleans and enums get their own input; anything else (arrays,
// oneOf/anyOf, open objects, `{}`) is a JSON text field. The API validates the value again and
// its answer is shown: this form only spares people typing JSON by hand.

export type FieldKind = "text" | "integer" | "number" | "boolean" | "enum" | "json";

export interface FormField {
  /** Property names from the value's root; `[]` is the whole value. */
  path: string[];
  kind: FieldKind;
  required: boolean;
  /**
   * Required along the whole path from the root (every enclosing object required too): such a
   * field must be filled before the form is sent. A required property of an optional object is
   * left to the API, which asks for it only once that object is given.
   */
  needed: boolean;
  /** `enum` only: the allowed values. */
  options?: unknown[];
  description?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

type Schema = Record<string, unknown>;

/** Where nesting stops being spread out (and a `$ref` cycle ends): deeper values are JSON fields. */
const MAX_DEPTH = 6;

function resolveRef(schema: Schema, defs: Record<string, unknown>, seen: number): Schema | null {
  let current = schema;
  for (let hops = 0; typeof current.$ref === "string"; hops++) {
    const match = /^#\/\$defs\/(.+)$/.exec(current.$ref as string);
    const target = match ? defs[match[1]!] : undefined;
    if (hops + seen > MAX_DEPTH || !target || typeof target !== "object") return null;
    current = target as Schema;
  }
  return current;
}

function leafKind(schema: Schema): FieldKind {
  if (Array.isArray(schema.enum)) return "enum";
  switch (schema.type) {
    case "string":
      return "text";
    case "integer":
      return "integer";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    default:
      return "json";
  }
}

/**
 * The fields of `schema`; `defs` are the definition's `$defs` (a schema's own `$defs` are
 * added to them).
 */
export function formFields(schema: unknown, defs: Record<string, unknown> = {}): FormField[] {
  const fields: FormField[] = [];
  const walk = (
    raw: unknown,
    path: string[],
    required: boolean,
    allDefs: Record<string, unknown>,
    parentNeeded: boolean,
  ) => {
    const node = raw && typeof raw === "object" ? (raw as Schema) : {};
    const scoped = node.$defs && typeof node.$defs === "object" ? { ...allDefs, ...(node.$defs as object) } : allDefs;
    const resolved = resolveRef(node, scoped, path.length);
    const description = typeof resolved?.description === "string" ? resolved.description : undefined;
    const spreadable =
      resolved &&
      resolved.type === "object" &&
      resolved.properties &&
      typeof resolved.properties === "object" &&
      Object.keys(resolved.properties).length > 0 &&
      path.length < MAX_DEPTH;
    if (spreadable) {
      const requiredNames = Array.isArray(resolved.required) ? (resolved.required as string[]) : [];
      for (const [name, child] of Object.entries(resolved.properties as Record<string, unknown>))
        walk(child, [...path, name], requiredNames.includes(name), scoped, parentNeeded && required);
      return;
    }
    const kind = resolved ? leafKind(resolved) : "json";
    const needed = parentNeeded && required && path.length > 0;
    const field: FormField = { path, kind, required, needed, ...(description ? { description } : {}) };
    if (kind === "enum") field.options = resolved!.enum as unknown[];
    for (const bound of ["minimum", "maximum", "minLength", "maxLength"] as const)
      if (typeof resolved?.[bound] === "number") field[bound] = resolved[bound] as number;
    fields.push(field);
  };
  walk(schema, [], true, defs, true);
  return fields;
}

/** The field's label: its dotted path, or "value" for the whole value. */
export function fieldLabel(field: FormField): string {
  return field.path.length ? field.path.join(".") : "value";
}

/** What one input holds: text for every kind, except a checkbox (required boolean). */
export type FieldInput = string | boolean;

function setAt(target: Record<string, unknown>, path: string[], value: unknown) {
  let node = target;
  for (const name of path.slice(0, -1)) {
    if (!node[name] || typeof node[name] !== "object") node[name] = {};
    node = node[name] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

/** Why one field keeps the form from being sent, shown beside that field. */
export interface FieldProblem {
  /** The field's label (`fieldLabel`). */
  label: string;
  message: string;
}

/** "label: message", the problem as one sentence (the form's summary). */
export const problemText = (problem: FieldProblem): string => `${problem.label}: ${problem.message}`;

/**
 * The value the inputs describe, or the problems that keep it from being sent (one per field).
 * Empty optional inputs are left out. A required checkbox (a required boolean) never touched
 * means false: it shows unchecked, and leaving it out would make the API refuse the answer as
 * missing a property the person did answer. Other empty fields that are `needed` are problems.
 */
export function formValue(
  fields: FormField[],
  inputs: Record<string, FieldInput>,
): { value: unknown; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  let whole: unknown;
  const root: Record<string, unknown> = {};
  for (const field of fields) {
    const label = fieldLabel(field);
    const raw = inputs[label];
    let value: unknown;
    if (field.kind === "boolean") {
      if (raw === true || raw === false) value = raw;
      else if (raw === "true" || raw === "false") value = raw === "true";
      else if (field.required && field.needed) value = false;
      else continue;
    } else {
      const text = typeof raw === "string" ? raw : "";
      if (text.trim() === "") {
        if (field.kind === "text" && field.required && text !== "") value = text;
        else if (field.needed) {
          problems.push({ label, message: "required: fill it in" });
          continue;
        } else continue;
      } else if (field.kind === "text") value = text;
      else if (field.kind === "integer") {
        if (!/^-?\d+$/.test(text.trim())) {
          problems.push({ label, message: `"${text}" is not a whole number` });
          continue;
        }
        value = Number(text.trim());
      } else if (field.kind === "number") {
        const n = Number(text.trim());
        if (!Number.isFinite(n)) {
          problems.push({ label, message: `"${text}" is not a number` });
          continue;
        }
        value = n;
      } else if (field.kind === "enum") {
        const index = Number(text);
        if (!Number.isInteger(index) || !field.options || index < 0 || index >= field.options.length) {
          if (field.needed) problems.push({ label, message: "required: choose one" });
          continue;
        }
        value = field.options[index];
      } else {
        try {
          value = JSON.parse(text);
        } catch (error) {
          problems.push({ label, message: `not JSON (${error instanceof Error ? error.message : String(error)})` });
          continue;
        }
      }
    }
    if (field.path.length === 0) whole = value;
    else setAt(root, field.path, value);
  }
  const isWhole = fields.length === 1 && fields[0]!.path.length === 0;
  return { value: isWhole ? (whole ?? null) : root, problems };
}

/**
 * The field an API refusal's path names, or undefined. The API names the whole value's place
 * (`result.amount`, `error.data.reason`, `input.item`, under `prefix`), and a missing object
 * by its own path (`result.approver`, whose fields are `approver.name`…): that goes to the
 * object's first field. A path deeper than a field (inside a JSON field) goes to that field.
 */
export function fieldOfPath(fields: FormField[], path: string, prefix: string): string | undefined {
  if (path !== prefix && !path.startsWith(`${prefix}.`)) return undefined;
  const rest = path === prefix ? [] : path.slice(prefix.length + 1).split(".");
  const exact = fields.find((f) => f.path.join(".") === rest.join("."));
  if (exact) return fieldLabel(exact);
  const inside = fields.find((f) => rest.length < f.path.length && rest.every((name, i) => f.path[i] === name));
  if (inside) return fieldLabel(inside);
  const around = fields.find((f) => f.path.length < rest.length && f.path.every((name, i) => rest[i] === name));
  return around ? fieldLabel(around) : undefined;
}
