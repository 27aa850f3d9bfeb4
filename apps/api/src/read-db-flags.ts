import { type Command, InvalidArgumentError, Option } from "commander";
import { DEFAULT_CONFIG, type ServerConfig } from "./config.js";

// The --read-db flags of main.ts (docs/deploy.md "Read replicas"), kept here so main.ts stays
// one screen of flags.

const READ_DB_OPTION = new Option("--read-db <url>", "PostgreSQL streaming replica for the reads").env(
  "READ_DATABASE_URL",
);

const READ_DB_MAX_LAG_OPTION = new Option(
  "--read-db-max-lag <ms>",
  "reads go to the primary while the --read-db replica may be more than this many ms behind",
)
  .default(DEFAULT_CONFIG.readDbMaxLagMs)
  .argParser((value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < 100) throw new InvalidArgumentError("--read-db-max-lag must be an integer >= 100");
    return n;
  });

/** `command` with --read-db and --read-db-max-lag. */
export function withReadDbFlags(command: Command): Command {
  return command.addOption(READ_DB_OPTION).addOption(READ_DB_MAX_LAG_OPTION);
}

/** The config fields of the flags; `fatal` when a replica is named without a PostgreSQL primary. */
export function readDbConfig(
  opts: { db?: string; readDb?: string; readDbMaxLag: number },
  fatal: (message: string) => never,
): Pick<ServerConfig, "readDbUrl" | "readDbMaxLagMs"> {
  if (opts.readDb !== undefined && (opts.db === undefined || !/^postgres(ql)?:\/\//.test(opts.readDb)))
    fatal("--read-db needs --db (a PostgreSQL primary) and a postgres:// or postgresql:// URL of its replica");
  return { readDbUrl: opts.readDb, readDbMaxLagMs: opts.readDbMaxLag };
}
