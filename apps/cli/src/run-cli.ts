import { CommanderError } from "commander";
import type { CliIo } from "./cli-io.js";
import { createContext } from "./context.js";
import { reportError } from "./error-report.js";
import { ExitCode } from "./exit-code.js";
import { buildProgram } from "./program.js";
import { escapingStream } from "./terminal-text.js";
import { cliVersion } from "./version.js";

const GLOBAL_WITH_VALUE = new Set(["--server", "--token"]);
const GLOBAL_FLAGS = new Set(["--json", "-q", "--quiet", "--no-color"]);

/** `baton [global options] --version`: the flag before any command. */
export function asksForVersion(argv: string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--version" || arg === "-V") return true;
    if (GLOBAL_WITH_VALUE.has(arg)) i++;
    else if (!GLOBAL_FLAGS.has(arg) && !/^--(server|token)=/.test(arg)) return false;
  }
  return false;
}

/** Runs one command line (without "node baton") and returns the exit code; never throws. */
export async function runCli(argv: string[], rawIo: CliIo): Promise<number> {
  // One place: nothing any command prints reaches the terminal unescaped.
  const io: CliIo = { ...rawIo, stdout: escapingStream(rawIo.stdout), stderr: escapingStream(rawIo.stderr) };
  if (asksForVersion(argv)) {
    io.stdout.write(`${cliVersion()}\n`);
    return ExitCode.ok;
  }
  let server: string | undefined;
  const program = buildProgram(io, (flags) =>
    createContext(io, flags, (connection) => {
      server = connection.server;
    }),
  );
  try {
    await program.parseAsync(argv, { from: "user" });
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return ExitCode.ok;
      return ExitCode.usage;
    }
    const report = reportError(error, server);
    for (const line of report.lines) io.stderr.write(`${line}\n`);
    return report.exitCode;
  }
}
