import { ApiError, ConnectionError } from "@baton/actions";
import { CliError } from "./cli-error.js";
import { ExitCode } from "./exit-code.js";

export interface ErrorReport {
  lines: string[];
  exitCode: ExitCode;
}

export function exitCodeForStatus(status: number): ExitCode {
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 404) return ExitCode.notFound;
  return ExitCode.failed;
}

export function unreachableMessage(server: string): string {
  return `error: cannot reach the Baton server at ${server} (is it running? set --server or BATON_SERVER)`;
}

export function formatFieldPath(path: unknown): string {
  if (Array.isArray(path)) {
    return path.reduce<string>(
      (out, part) =>
        typeof part === "number" || /^\d+$/.test(String(part))
          ? `${out}[${part}]`
          : out
            ? `${out}.${part}`
            : String(part),
      "",
    );
  }
  return String(path ?? "");
}

/** The stderr lines and exit code for anything a command threw; never a stack trace. */
export function reportError(error: unknown, server?: string): ErrorReport {
  if (error instanceof CliError) return { lines: error.lines, exitCode: error.exitCode };
  if (error instanceof ApiError) {
    // A multi-line message is kept as one error: with field problems its details are those
    // problems (listed below), otherwise its further lines are indented under the first.
    const [first = "", ...rest] = error.message.split("\n").filter((line) => line.trim() !== "");
    const fieldLines = (error.fields ?? []).map((field) => {
      const path = formatFieldPath(field.path);
      return `${path ? `${path}: ` : ""}${field.message}`;
    });
    // A server message may end with its first field problem ("…: input.who: required …"),
    // which is listed below anyway: each fact is printed once.
    const repeated = fieldLines.find((line) => first.endsWith(`: ${line}`));
    const lines = [`error: ${error.code}: ${repeated ? first.slice(0, -(repeated.length + 2)) : first}`];
    if (!error.fields?.length) lines.push(...rest.map((line) => `  ${line}`));
    lines.push(...fieldLines.map((line) => `  ${line}`));
    return { lines, exitCode: exitCodeForStatus(error.status) };
  }
  if (error instanceof ConnectionError) {
    return { lines: [unreachableMessage(error.server || server || "?")], exitCode: ExitCode.unreachable };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { lines: [`error: ${message.split("\n")[0]}`], exitCode: ExitCode.failed };
}
