import { type Command, Option } from "commander";
import { DEFAULT_CONFIG } from "../config.js";
import type { OpenOptions } from "../storage/db.js";

/** `--db URL` (or DATABASE_URL) for PostgreSQL, else PGlite in `--data-dir`: the same choice the server makes. */
export function addDatabaseOptions(command: Command): Command {
  return command
    .addOption(
      new Option("--db <url>", "PostgreSQL URL; default: the embedded PGlite database in --data-dir").env(
        "DATABASE_URL",
      ),
    )
    .option("--data-dir <dir>", "PGlite data directory of the server", DEFAULT_CONFIG.dataDir);
}

/**
 * Unless the program enables positional options, commander lets a parent that declares the
 * same flag (baton-api serves with --db and --data-dir) consume it after the subcommand name;
 * so the value given on the command line or by the environment wins wherever it landed.
 */
export function databaseOptionsOf(command: Command): OpenOptions {
  const url = optionValue<string>(command, "db");
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url)) {
    throw new Error(
      `--db must be a postgres:// or postgresql:// URL (got "${url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@")}")`,
    );
  }
  return { url, dataDir: optionValue<string>(command, "dataDir") ?? DEFAULT_CONFIG.dataDir };
}

function optionValue<T>(command: Command, key: string): T | undefined {
  const chain: Command[] = [];
  for (let c: Command | null = command; c; c = c.parent) chain.push(c);
  for (const source of ["cli", "env"]) {
    const found = chain.find((c) => c.getOptionValueSource(key) === source);
    if (found) return found.getOptionValue(key) as T;
  }
  return chain.map((c) => c.getOptionValue(key) as T | undefined).find((v) => v !== undefined);
}
