import type { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import type { Command, Option } from "commander";

// Flags from the environment (docs/deploy.md "Configuration from the environment"): every flag
// of a server is also read from `<PREFIX><FLAG IN UPPER SNAKE CASE>`, a flag given on the
// command line wins, and any of them may instead name a file in `<NAME>_FILE` (container
// secrets). Applied to the whole table of a server's options, so a flag added to it later gets
// its variable without anything else to change.

/** `--fetch-allow` with prefix `BATON_` → `BATON_FETCH_ALLOW`; `--no-tick` → `BATON_NO_TICK`. */
export function environmentName(option: Option, prefix: string): string {
  const long = option.long ?? option.short ?? option.flags;
  return `${prefix}${long.replace(/^-+/, "").replace(/-/g, "_").toUpperCase()}`;
}

/** The words a variable of a flag without a value may hold: on, or off (as if not set). */
const ON = new Set(["1", "true"]);
const OFF = new Set(["0", "false", ""]);

/**
 * Gives every option of `command` its variable (an option that names one already keeps it, as
 * `--db` keeps `DATABASE_URL`; `--help` and `--version` get none), fills `env` from the
 * `<NAME>_FILE` variables, and reads the variable of a flag without a value as on (`1`, `true`)
 * or off (`0`, `false`, empty: removed, since commander turns such a flag on for any value at
 * all). Call it once the options are added, before `parse`; `env` is what commander reads.
 * Throws an Error naming the variable when one cannot be used.
 */
export function readFlagsFromEnvironment(command: Command, prefix: string, env: NodeJS.ProcessEnv = process.env): void {
  for (const option of command.options) {
    if (option.long === "--version" || option.long === "--help") continue;
    if (option.envVar === undefined) {
      option.env(environmentName(option, prefix));
      // Commander listens for a variable only when the option is added with one: a variable
      // given later is handed to the option's own handler, as a value on the command line is
      // (its parser, its checks). Commander reads the variable only when no flag was given.
      command.on(`optionEnv:${option.name()}`, (value?: string) =>
        (command as unknown as EventEmitter).emit(`option:${option.name()}`, value),
      );
    }
    const name = option.envVar!;
    const file = env[`${name}_FILE`];
    if (file !== undefined) {
      if (env[name] !== undefined) throw new Error(`${name} and ${name}_FILE are both set; set one of them`);
      env[name] = contentOf(`${name}_FILE`, file);
    }
    const value = env[name];
    if (value === undefined || option.required || option.optional) continue;
    const word = value.trim().toLowerCase();
    if (OFF.has(word)) delete env[name];
    else if (!ON.has(word))
      throw new Error(`${name} must be 1 or true to give ${option.long}, or 0 or false not to (got "${value}")`);
  }
}

/**
 * Once parsed: removes from `env` every variable this rule named with `prefix`, and its
 * `_FILE`, so nothing else in the process (a definition's settings, read from
 * `BATON_<PROCESS>_<NAME>` variables) can read the server's own configuration.
 */
export function forgetFlagVariables(command: Command, prefix: string, env: NodeJS.ProcessEnv = process.env): void {
  for (const option of command.options) {
    const name = option.envVar;
    if (name === undefined || !name.startsWith(prefix)) continue;
    delete env[name];
    delete env[`${name}_FILE`];
  }
}

/** A file's text without its final line break (files written by `echo` or an editor end with one). */
function contentOf(variable: string, file: string): string {
  try {
    return readFileSync(file, "utf8").replace(/\r?\n$/, "");
  } catch (error) {
    throw new Error(`${variable}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
}

/** Every option's variable, for --help and the docs: `[flag, variable]` in the command's order. */
export function environmentTable(command: Command): Array<[string, string]> {
  return command.options
    .filter((option) => option.envVar !== undefined)
    .map((option) => [option.long ?? option.flags, option.envVar!]);
}
