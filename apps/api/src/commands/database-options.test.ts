import { Command, Option } from "commander";
import { describe, expect, it } from "vitest";
import { addDatabaseOptions, databaseOptionsOf } from "./database-options.js";

function withDatabaseUrl<T>(value: string | undefined, run: () => T): T {
  const saved = process.env.DATABASE_URL;
  if (value === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = value;
  try {
    return run();
  } finally {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
}

// Mirrors main.ts: the serving program declares the same flags as the subcommand.
function parse(argv: string[], databaseUrl?: string): ReturnType<typeof databaseOptionsOf> {
  return withDatabaseUrl(databaseUrl, () => {
    let seen: ReturnType<typeof databaseOptionsOf> | undefined;
    const program = new Command("baton-api")
      .addOption(new Option("--db <url>").env("DATABASE_URL"))
      .option("--data-dir <dir>", "", "./.baton")
      .exitOverride()
      .action(() => {});
    const tokens = program.command("tokens");
    addDatabaseOptions(tokens.command("list")).action((_opts, command: Command) => {
      seen = databaseOptionsOf(command);
    });
    program.parse(argv, { from: "user" });
    return seen!;
  });
}

describe("databaseOptionsOf", () => {
  it("defaults to PGlite in ./.baton", () => {
    expect(parse(["tokens", "list"])).toEqual({ url: undefined, dataDir: "./.baton" });
  });

  it("takes --data-dir and --db given after the subcommand even when the parent declares them too", () => {
    expect(parse(["tokens", "list", "--data-dir", "/srv/baton"])).toEqual({ url: undefined, dataDir: "/srv/baton" });
    expect(parse(["tokens", "list", "--db", "postgres://db/baton"]).url).toBe("postgres://db/baton");
  });

  it("takes them before the subcommand too", () => {
    expect(parse(["--data-dir", "/srv/x", "tokens", "list"]).dataDir).toBe("/srv/x");
  });

  it("reads DATABASE_URL, and --db overrides it", () => {
    expect(parse(["tokens", "list"], "postgresql://env/db").url).toBe("postgresql://env/db");
    expect(parse(["tokens", "list", "--db", "postgres://flag/db"], "postgres://env/db").url).toBe("postgres://flag/db");
  });

  it("refuses a --db that is not a PostgreSQL URL, without echoing its password", () => {
    expect(() => parse(["tokens", "list", "--db", "mysql://u:hunter2@h/db"])).toThrow(
      '--db must be a postgres:// or postgresql:// URL (got "mysql://u:***@h/db")',
    );
  });

  it("works on a program that declares neither flag", () => {
    let seen: ReturnType<typeof databaseOptionsOf> | undefined;
    const program = new Command("x").exitOverride();
    addDatabaseOptions(program.command("list")).action((_o, command: Command) => {
      seen = databaseOptionsOf(command);
    });
    withDatabaseUrl(undefined, () => program.parse(["list", "--data-dir", "memory://"], { from: "user" }));
    expect(seen).toEqual({ url: undefined, dataDir: "memory://" });
  });
});
