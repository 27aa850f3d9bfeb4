// The ajv setup the api is expected to use for the registry's schemas (see the report of
// packages/actions): strict, union types allowed, query strings coerced, our formats.
import { Ajv } from "ajv";
import { SCHEMA_FORMATS } from "../schema.js";

export function requestAjv(): Ajv {
  return new Ajv({ strict: true, allowUnionTypes: true, allErrors: true, formats: SCHEMA_FORMATS });
}

export function queryAjv(): Ajv {
  return new Ajv({
    strict: true,
    allowUnionTypes: true,
    allErrors: true,
    coerceTypes: true,
    useDefaults: true,
    formats: SCHEMA_FORMATS,
  });
}

/** A copy where every object schema that lists properties refuses others: catches typos in examples. */
export function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema))
    out[key] =
      key === "properties"
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, closed(v)]))
        : closed(value);
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}
