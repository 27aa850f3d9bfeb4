// Small builders for the JSON Schemas of the registry. Request objects are strict
// (`additionalProperties: false`: an unknown or misspelled field is a 400 naming it);
// response objects stay open so that a server adding a field does not break old clients.

import { SCOPE_PATTERN_SOURCE, SCOPES_MAX } from "./scope-rule.js";
import type { JsonSchema } from "./action-spec.js";

export function str(description: string, extra: JsonSchema = {}): JsonSchema {
  return { type: "string", description, ...extra };
}

export function int(description: string, extra: JsonSchema = {}): JsonSchema {
  return { type: "integer", description, ...extra };
}

export function bool(description: string, extra: JsonSchema = {}): JsonSchema {
  return { type: "boolean", description, ...extra };
}

export function dateTime(description: string): JsonSchema {
  return { type: "string", format: "date-time", description };
}

/**
 * Numeric ranges of request fields (docs/api.md "Numbers in requests"): each is what the
 * column or the clock behind the field can hold, so a value past it is a 400 naming the
 * field rather than a database or Date overflow (a 500).
 */
/** Versions are PostgreSQL `integer` columns. */
export const MAX_VERSION = 2_147_483_647;
/** The largest instant a JavaScript Date holds (year 275760). */
export const MAX_UNIX_MS = 8_640_000_000_000_000;
/** The longest span a request may ask for (100 years, as the language's longest duration). */
export const MAX_SPAN_MS = 36_500 * 86_400_000;

/** **Extension** beside every `actor` field (docs/auth.md "Actors"); present exactly when `actor` is. */
export const ACTOR_LABEL: JsonSchema = str(
  '**Extension.** The actor as people know it: an API token\'s admin-chosen label for `token:<id>` (never its secret), otherwise the actor itself (a signed-in subject). Shown to every reader of this view (docs/auth.md "Actors").',
);

/** Unix milliseconds, as the time-bound filters take them. */
export function unixMs(description: string): JsonSchema {
  return { type: "integer", minimum: 0, maximum: MAX_UNIX_MS, description };
}

export function arrayOf(items: JsonSchema, description: string, extra: JsonSchema = {}): JsonSchema {
  return { type: "array", items, description, ...extra };
}

/** Any JSON value (numbers may exceed float64: the client parses losslessly). */
export function anyJson(description: string): JsonSchema {
  return { description };
}

/** `schema` or null; the schema's `type` must be a single string. */
export function nullable(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  if (typeof type !== "string")
    throw new Error(`nullable() needs a schema with a single type, got ${JSON.stringify(type)}`);
  const out: JsonSchema = { ...schema, type: [type, "null"] };
  if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
  return out;
}

/** A request object: unknown keys are refused. */
export function strictObject(
  properties: Record<string, JsonSchema>,
  required: string[] = [],
  extra: JsonSchema = {},
): JsonSchema {
  return { type: "object", properties, required, additionalProperties: false, ...extra };
}

/** A response object: the listed fields, more may be added by later server versions. */
export function responseObject(
  properties: Record<string, JsonSchema>,
  required: string[],
  extra: JsonSchema = {},
): JsonSchema {
  return { type: "object", properties, required, ...extra };
}

/**
 * A free-form object: any keys, values of any JSON type. `additionalProperties: {}` makes
 * generators type it as an open map of unknown values (openapi-typescript's
 * `Record<string, unknown>`); a bare `{type: "object"}` becomes `Record<string, never>`.
 */
export function openObject(description: string, extra: JsonSchema = {}): JsonSchema {
  return { type: "object", additionalProperties: {}, description, ...extra };
}

/** A JSON Schema carried as data (a definition's input_schema, an inferred schema…). */
export function schemaValue(description: string): JsonSchema {
  return openObject(description);
}

export const PROCESS_NAME_PATTERN = "^[a-z0-9][a-z0-9_.-]{0,127}$";

export function scopePatterns(description: string): JsonSchema {
  return {
    type: ["array", "null"],
    description,
    items: { type: "string", pattern: SCOPE_PATTERN_SOURCE },
    uniqueItems: true,
    maxItems: SCOPES_MAX,
  };
}

export function processName(description: string): JsonSchema {
  return str(description, { pattern: PROCESS_NAME_PATTERN });
}

export const AUTHORED_CODE_PATTERN = "^[a-z][a-z0-9_]*$";

/**
 * Formats used by the registry's schemas, as plain RegExps: pass them to ajv
 * (`new Ajv({ formats: SCHEMA_FORMATS })`) so validation needs no ajv-formats.
 */
export const SCHEMA_FORMATS: Record<string, RegExp> = {
  "date-time": /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/,
};
