import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Command, Option } from "commander";
import { describe, expect, it } from "vitest";
import { environmentName, environmentTable, forgetFlagVariables, readFlagsFromEnvironment } from "./index.js";

/** A command like the servers': flags with values, a repeated list, a negated switch, one named variable. */
function server() {
  return new Command("server")
    .exitOverride()
    .version("1.0.0", "--version")
    .addOption(new Option("--http <addr>").default("127.0.0.1:8449"))
    .addOption(new Option("--db <url>").env("DATABASE_URL"))
    .addOption(
      new Option("--fetch-allow <list>")
        .argParser((v: string, p: string[] = []) => [...p, ...v.split(",")])
        .default([]),
    )
    .addOption(new Option("--jwt-secret-file <path>"))
    .addOption(new Option("--no-tick"))
    .action(() => {});
}

/** The command once its variables are named (no environment read). */
function named() {
  const command = server();
  readFlagsFromEnvironment(command, "BATON_", {});
  return command;
}

function parse(env: NodeJS.ProcessEnv, argv: string[] = []) {
  const command = server();
  const saved = process.env;
  process.env = env;
  try {
    readFlagsFromEnvironment(command, "BATON_", env);
    command.parse(argv, { from: "user" });
  } finally {
    process.env = saved;
  }
  return command.opts();
}

describe("flags from the environment", () => {
  it("names each variable by one rule: the prefix and the flag in upper snake case", () => {
    expect(environmentTable(named())).toEqual([
      ["--http", "BATON_HTTP"],
      ["--db", "DATABASE_URL"],
      ["--fetch-allow", "BATON_FETCH_ALLOW"],
      ["--jwt-secret-file", "BATON_JWT_SECRET_FILE"],
      ["--no-tick", "BATON_NO_TICK"],
    ]);
    expect(environmentName(new Option("--max-body <bytes>"), "BATON_PROXY_")).toBe("BATON_PROXY_MAX_BODY");
  });

  it("reads every flag from its variable, through the flag's own parser", () => {
    expect(
      parse({
        BATON_HTTP: ":9000",
        DATABASE_URL: "postgres://x",
        BATON_FETCH_ALLOW: "a.example,b.example",
        BATON_NO_TICK: "1",
      }),
    ).toEqual({ http: ":9000", db: "postgres://x", fetchAllow: ["a.example", "b.example"], tick: false });
  });

  it("lets a flag on the command line win over its variable", () => {
    expect(parse({ BATON_HTTP: ":9000" }, ["--http", ":7000"]).http).toBe(":7000");
  });

  it("reads a value from the file named by <NAME>_FILE, without its final line break", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "flag-env-"));
    writeFileSync(path.join(dir, "db"), "postgres://u:secret@db/baton\n");
    expect(parse({ DATABASE_URL_FILE: path.join(dir, "db") }).db).toBe("postgres://u:secret@db/baton");
  });

  it("refuses a variable and its _FILE together, and a _FILE it cannot read, naming them", () => {
    expect(() => parse({ BATON_HTTP: ":1", BATON_HTTP_FILE: "/x" })).toThrow(
      "BATON_HTTP and BATON_HTTP_FILE are both set; set one of them",
    );
    expect(() => parse({ DATABASE_URL_FILE: "/nonexistent/db-url" })).toThrow(
      "DATABASE_URL_FILE: cannot read /nonexistent/db-url (ENOENT)",
    );
  });

  it("takes 1/true and 0/false for a flag without a value, and refuses anything else", () => {
    expect(parse({ BATON_NO_TICK: "true" }).tick).toBe(false);
    expect(parse({ BATON_NO_TICK: "0" }).tick, "0 is off, not on").toBe(true);
    expect(parse({ BATON_NO_TICK: "false" }).tick).toBe(true);
    expect(() => parse({ BATON_NO_TICK: "yes" })).toThrow(
      'BATON_NO_TICK must be 1 or true to give --no-tick, or 0 or false not to (got "yes")',
    );
  });

  it("forgets the variables it named once parsed, and only those", () => {
    const env: NodeJS.ProcessEnv = {
      BATON_HTTP: ":1",
      BATON_NO_TICK_FILE: "/x",
      DATABASE_URL: "postgres://x",
      BATON_ORDERS_TOKEN: "t",
    };
    forgetFlagVariables(named(), "BATON_", env);
    expect(env, "DATABASE_URL is not BATON_-named; a process's own variable stays").toEqual({
      DATABASE_URL: "postgres://x",
      BATON_ORDERS_TOKEN: "t",
    });
  });

  it("gives --version and --help no variable", () => {
    expect(environmentTable(named()).map(([flag]) => flag)).not.toContain("--version");
  });
});
