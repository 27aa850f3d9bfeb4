import { ExitCode } from "./exit-code.js";

/**
 * A failure the CLI detected itself. `lines` are printed to stderr as they are (the first one
 * usually starts with "error:"); no stack trace is ever shown.
 */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly lines: string[];

  constructor(message: string, exitCode: ExitCode = ExitCode.failed, lines?: string[]) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
    this.lines = lines ?? [`error: ${message}`];
  }
}

/** Bad arguments or flags: exit 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.usage);
    this.name = "UsageError";
  }
}
