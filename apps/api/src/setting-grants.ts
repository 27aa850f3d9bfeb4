// Which settings a process may read (docs/security.md "The secret model"): its own
// `BATON_<PROCESS>_<NAME>` variables, and the `BATON_GLOBAL_<NAME>` variables the operator
// shares with --share-global. A global not shared is withheld: taken out of the server's
// environment at start, so no definition can read it under any name.
import type { Definition } from "@baton/model";
import { configVariables } from "./engine/advance/config-root.js";

const GLOBAL = /^BATON_GLOBAL_(.+)$/;

/**
 * The global variables of `env` that `shared` (setting names as a definition writes them, or
 * `*` for every one) does not share, removed from `env`; returned for the start-up warning.
 */
export function withholdGlobals(env: NodeJS.ProcessEnv, shared: readonly string[]): string[] {
  if (shared.includes("*")) return [];
  const allowed = new Set(shared.map((name) => configVariables("global", name)[1]));
  const withheld = Object.keys(env)
    .filter((variable) => GLOBAL.test(variable) && !allowed.has(variable))
    .sort();
  for (const variable of withheld) delete env[variable];
  return withheld;
}

/** One variable that two settings of different processes both read. */
export interface AmbiguousVariable {
  variable: string;
  readers: string[];
}

/**
 * The process variables of `env` that settings of two different registered processes map to
 * (`orders` + `CRM_TOKEN` and `orders-crm` + `TOKEN` both read `BATON_ORDERS_CRM_TOKEN`):
 * whichever process reads it, the other's value is what it gets. Set ones only.
 */
export function ambiguousVariables(definitions: readonly Definition[], env: NodeJS.ProcessEnv): AmbiguousVariable[] {
  const readers = new Map<string, Set<string>>();
  for (const definition of definitions) {
    for (const name of Object.keys(definition.config_schema?.properties ?? {})) {
      const [variable] = configVariables(definition.name, name);
      if (env[variable] === undefined) continue;
      const set = readers.get(variable) ?? new Set<string>();
      set.add(`${definition.name}.${name}`);
      readers.set(variable, set);
    }
  }
  return [...readers]
    .filter(([, set]) => new Set([...set].map((reader) => reader.slice(0, reader.lastIndexOf(".")))).size > 1)
    .map(([variable, set]) => ({ variable, readers: [...set].sort() }))
    .sort((a, b) => a.variable.localeCompare(b.variable));
}
