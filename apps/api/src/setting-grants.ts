// Which settings a process may read (docs/security.md "The secret model"): its own
// `BATON_<PROCESS>_<NAME>` variables, and the `BATON_GLOBAL_<NAME>` variables the operator
// shares with --share-global. A global not shared is withheld: taken out of the server's
// environment at start, so no definition can read it under any name. Which values are secret
// is the operator's too: the variables --secret-variables names, and every setting read from a
// `_FILE`.
import { readFileSync } from "node:fs";
import type { Definition } from "@baton/model";
import { definitionsDeclaringConfig } from "./definitions/store.js";
import { configVariables } from "./engine/advance/config-root.js";
import { invalid } from "./refusal.js";
import type { Db } from "./storage/db.js";

const GLOBAL = /^BATON_GLOBAL_(.+)$/;
const SETTING_FILE = /^(BATON_.+)_FILE$/;

/**
 * Reads every `BATON_<…>_FILE` variable left in `env` (the server's own flags have consumed
 * theirs) into its setting variable, as container secrets are mounted, and removes the `_FILE`
 * variable. Returns the setting variables so read: their values are secret. Throws an Error
 * naming the variable when its file cannot be read or the variable is also set directly.
 */
export function readSettingFiles(env: NodeJS.ProcessEnv): string[] {
  const read: string[] = [];
  for (const fileVariable of Object.keys(env).sort()) {
    const variable = SETTING_FILE.exec(fileVariable)?.[1];
    const path = env[fileVariable];
    if (variable === undefined || path === undefined) continue;
    if (env[variable] !== undefined) throw new Error(`${variable} and ${fileVariable} are both set; set one of them`);
    try {
      env[variable] = readFileSync(path, "utf8").replace(/\r?\n$/, "");
    } catch (error) {
      throw new Error(`${fileVariable}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? error})`);
    }
    delete env[fileVariable];
    read.push(variable);
  }
  return read;
}

/**
 * The variables of `env` whose values the operator declared secret: those matching a pattern
 * of --secret-variables (`*` matches any run of characters) and those given in `filed`.
 */
export function secretVariables(
  env: NodeJS.ProcessEnv,
  patterns: readonly string[],
  filed: readonly string[],
): string[] {
  const matchers = patterns.map(
    (pattern) =>
      new RegExp(
        `^${pattern
          .split("*")
          .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
          .join(".*")}$`,
      ),
  );
  const names = new Set(filed);
  for (const variable of Object.keys(env)) if (matchers.some((matcher) => matcher.test(variable))) names.add(variable);
  return [...names].filter((variable) => env[variable] !== undefined).sort();
}

/**
 * The global variables of `env` that `shared` (setting names as a definition writes them, or
 * `*` for every one) does not share, removed from `env`; returned for the start-up warning.
 */
export function withholdGlobals(env: NodeJS.ProcessEnv, shared: readonly string[]): string[] {
  if (shared.includes("*")) return [];
  // `NAME=<scope pattern>` shares it with some processes only (engine/advance/config-root.ts globalGrants).
  const allowed = new Set(shared.map((entry) => configVariables("global", entry.split("=")[0]!)[1]));
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

/** A definition about to be registered: its process, its settings, and where it sits in the body. */
export interface IncomingSettings {
  name: string;
  settings: string[];
  /** The body path of the definition, e.g. `body` or `body.definitions[2]`. */
  path: string;
}

/**
 * Refuses (400) a registration whose setting would read the variable of a setting of another
 * process, stored or in the same request: two processes' settings never share a variable
 * (docs/security.md "The secret model"). Versions of one process may.
 */
export async function refuseSettingCollisions(
  db: Db,
  incoming: readonly IncomingSettings[],
  visible: (process: string) => boolean = () => true,
): Promise<void> {
  if (incoming.every((definition) => definition.settings.length === 0)) return;
  const owners = new Map<string, { process: string; setting: string }>();
  for (const stored of await definitionsDeclaringConfig(db))
    for (const setting of Object.keys(stored.config_schema?.properties ?? {}))
      owners.set(configVariables(stored.name, setting)[0], { process: stored.name, setting });
  const problems: { path: string; message: string }[] = [];
  for (const definition of incoming) {
    for (const setting of definition.settings) {
      const [variable] = configVariables(definition.name, setting);
      const owner = owners.get(variable);
      if (owner !== undefined && owner.process !== definition.name)
        problems.push({
          path: `${definition.path}.config_schema.properties.${setting}`,
          // A process the caller's scopes do not reach is never named (docs/auth.md "Scopes").
          message: `setting "${setting}" of process "${definition.name}" would read ${variable}, the variable of ${visible(owner.process) ? `setting "${owner.setting}" of process "${owner.process}"` : "a setting of another process"}; rename the setting (settings of two processes never share a variable, docs/security.md "The secret model")`,
        });
      else owners.set(variable, { process: definition.name, setting });
    }
  }
  if (problems.length > 0) throw invalid(problems[0]!.message, problems);
}
