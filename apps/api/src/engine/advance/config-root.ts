import { type Json, parseJson } from "@baton/expr";
import type { Definition, Schema } from "@baton/model";
import { TaskFailure } from "./task-failure.js";

/**
 * The `config` root (docs/language.md#config): each property of `config_schema` from
 * `BATON_<PROCESS>_<NAME>`, then `BATON_GLOBAL_<NAME>`, then its `default`. Non-string types
 * are read as JSON.
 */
export function configRoot(definition: Definition, env: NodeJS.ProcessEnv): { [key: string]: Json } {
  const schema = definition.config_schema;
  if (schema === undefined) return {};
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const prefix = `BATON_${envName(definition.name)}_`;
  const out: { [key: string]: Json } = {};
  for (const [name, property] of Object.entries(properties)) {
    const raw = env[`${prefix}${envName(name)}`] ?? env[`BATON_GLOBAL_${envName(name)}`];
    if (raw !== undefined) {
      out[name] = readValue(raw, property, `${prefix}${envName(name)}`);
    } else if (property.default !== undefined) {
      out[name] = property.default as Json;
    } else if (required.has(name)) {
      throw new TaskFailure(
        "engine.config",
        `config "${name}" is required: set ${prefix}${envName(name)} or BATON_GLOBAL_${envName(name)}`,
      );
    } else {
      out[name] = null;
    }
  }
  return out;
}

/** The environment variables of setting `name`, in precedence order: process, then global. */
export function configVariables(processName: string, name: string): [string, string] {
  return [`BATON_${envName(processName)}_${envName(name)}`, `BATON_GLOBAL_${envName(name)}`];
}

function envName(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9]/g, "_");
}

function readValue(raw: string, schema: Schema, variable: string): Json {
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  if (types.includes("string") || types[0] === undefined) return raw;
  try {
    return parseJson(raw);
  } catch {
    throw new TaskFailure("engine.config", `${variable} is not valid JSON for a ${types.join(" or ")} setting`);
  }
}
