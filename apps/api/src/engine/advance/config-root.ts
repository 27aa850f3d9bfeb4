import { type Json, parseJson } from "@baton/expr";
import type { Definition, Schema } from "@baton/model";
import { scopesCover } from "@baton/actions/scope-rule";
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

/**
 * Who may read each shared global (`--share-global`, docs/security.md "The secret model"):
 * `NAME` shares `BATON_GLOBAL_<NAME>` with every process, `NAME=<scope pattern>` with the
 * processes the pattern reaches (repeat it for more patterns); `*` shares every global with
 * every process. By variable; null = every process.
 */
export type GlobalGrants = "all" | Map<string, string[] | null>;

export function globalGrants(shared: readonly string[]): GlobalGrants {
  if (shared.includes("*")) return "all";
  const grants = new Map<string, string[] | null>();
  for (const entry of shared) {
    const at = entry.indexOf("=");
    const variable = configVariables("global", at < 0 ? entry : entry.slice(0, at))[1];
    if (at < 0) grants.set(variable, null);
    else if (grants.get(variable) !== null)
      grants.set(variable, [...(grants.get(variable) ?? []), entry.slice(at + 1)]);
  }
  return grants;
}

/** `env` as process `name` reads it: a global shared only with other scopes is absent (docs/auth.md "Scopes"). */
export function grantedEnv(env: NodeJS.ProcessEnv, name: string, grants: GlobalGrants): NodeJS.ProcessEnv {
  if (grants === "all") return env;
  return new Proxy(env, {
    get(target, key) {
      if (typeof key !== "string" || !key.startsWith("BATON_GLOBAL_")) return target[key as string];
      const patterns = grants.get(key);
      return patterns === undefined || scopesCover(patterns, name) ? target[key] : undefined;
    },
  });
}
