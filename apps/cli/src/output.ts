import { stringifyJson } from "@baton/expr";
import type { CliIo } from "./cli-io.js";
import { type Style, colorsWanted, createStyle } from "./style.js";
import { type Cell, type Column, renderTable } from "./table.js";

export interface GlobalFlags {
  server?: string;
  token?: string;
  json?: boolean;
  quiet?: boolean;
  color?: boolean;
}

/** Where a command's results go: stdout for results, stderr for hints and progress. */
export interface Output {
  json: boolean;
  quiet: boolean;
  style: Style;
  /**
   * Width for tables: the terminal's (80 when a terminal does not say). Infinite when stdout is
   * not a terminal: piped output is never truncated (as kubectl and gh do), so a script or
   * `grep` sees every value whole (docs/cli.md "Output").
   */
  width: number;
  /** The API's JSON, lossless numbers kept, on stdout. */
  printJson(value: unknown): void;
  /** A result line on stdout (never suppressed: it is what the command is for). */
  print(text: string): void;
  /** A line on stdout for people; suppressed by --quiet. */
  info(text: string): void;
  /** A hint on stderr; suppressed by --quiet and --json. */
  hint(text: string): void;
  table(columns: Column[], rows: (string | Cell)[][]): void;
}

export function createOutput(io: CliIo, flags: GlobalFlags): Output {
  const json = Boolean(flags.json);
  const quiet = Boolean(flags.quiet);
  const style = createStyle(colorsWanted(io.stdout.isTTY, flags.color !== false, io.env));
  const width = io.stdout.isTTY ? io.stdout.columns || 80 : Number.POSITIVE_INFINITY;
  return {
    json,
    quiet,
    style,
    width,
    printJson: (value) => io.stdout.write(`${stringifyJson(value, 2)}\n`),
    print: (text) => io.stdout.write(`${text}\n`),
    info: (text) => {
      if (!quiet) io.stdout.write(`${text}\n`);
    },
    hint: (text) => {
      if (!quiet && !json) io.stderr.write(`${text}\n`);
    },
    table: (columns, rows) => io.stdout.write(`${renderTable(columns, rows, width, style.bold)}\n`),
  };
}

/** Pretty JSON for people (lossless numbers kept). */
export function formatJson(value: unknown): string {
  return stringifyJson(value, 2);
}
