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
  const walk = (raw: unknown, path: string[], required: boolean, allDefs: Record<string, unknown>) => {
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
        walk(child, [...path, name], requiredNames.includes(name), scoped);
      return;
    }
    const kind = resolved ? leafKind(resolved) : "json";
    const field: FormField = { path, kind, required, ...(description ? { description } : {}) };
    if (kind === "enum") field.options = resolved!.enum as unknown[];
    for (const bound of ["minimum", "maximum", "minLength", "maxLength"] as const)
      if (typeof resolved?.[bound] === "number") field[bound] = resolved[bound] as number;
    fields.push(field);
  };
  walk(schema, [], true, defs);
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

/**
 * The value the inputs describe, or the problems that keep it from being sent (one sentence
 * each, naming the field). Empty optional inputs are left out; empty required ones are left out
 * too, and the API names them.
 */
export function formValue(
  fields: FormField[],
  inputs: Record<string, FieldInput>,
): { value: unknown; problems: string[] } {
  const problems: string[] = [];
  let whole: unknown;
  const root: Record<string, unknown> = {};
  for (const field of fields) {
    const label = fieldLabel(field);
    const raw = inputs[label];
    let value: unknown;
    if (field.kind === "boolean") {
      if (raw === true || raw === false) value = raw;
      else if (raw === "true" || raw === "false") value = raw === "true";
      else continue;
    } else {
      const text = typeof raw === "string" ? raw : "";
      if (text.trim() === "") {
        if (field.kind === "text" && field.required && text !== "") value = text;
        else continue;
      } else if (field.kind === "text") value = text;
      else if (field.kind === "integer") {
        if (!/^-?\d+$/.test(text.trim())) {
          problems.push(`${label}: "${text}" is not a whole number`);
          continue;
        }
        value = Number(text.trim());
      } else if (field.kind === "number") {
        const n = Number(text.trim());
        if (!Number.isFinite(n)) {
          problems.push(`${label}: "${text}" is not a number`);
          continue;
        }
        value = n;
      } else if (field.kind === "enum") {
        const index = Number(text);
        if (!Number.isInteger(index) || !field.options || index < 0 || index >= field.options.length) continue;
        value = field.options[index];
      } else {
        try {
          value = JSON.parse(text);
        } catch (error) {
          problems.push(`${label}: not JSON (${error instanceof Error ? error.message : String(error)})`);
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
