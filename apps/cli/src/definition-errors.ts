import { CliError } from "./cli-error.js";
import type { LoadedDefinition } from "./definition-files.js";
import { reportError } from "./error-report.js";
import { formatLocatedProblem, locateProblem } from "./problem-locations.js";

/** Re-reports an API error with its field problems located in the user's files. */
export async function withProblemLocations<T>(loaded: LoadedDefinition[], sentAsArray: boolean, call: () => Promise<T>, done = 0): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const report = reportError(error);
    // Only a rejected definition (400) has something to locate; 501 and the rest stay one line.
    if (!(error instanceof Error) || (error as { status?: unknown }).status !== 400) throw error;
    const fields = (error as { fields?: { path: unknown; message: string }[] }).fields ?? [];
    const lines = [report.lines[0]];
    if (fields.length > 0) {
      for (const field of fields) lines.push(`  ${formatLocatedProblem(locateProblem(loaded, field, sentAsArray))}`);
    } else if (!sentAsArray && loaded[0]) {
      lines.push(`  in ${loaded[0].source}${loaded[0].name ? `, process ${loaded[0].name}` : ""}`);
    }
    if (done > 0) lines.push(`  (${done} definition${done === 1 ? " was" : "s were"} registered before this one)`);
    throw new CliError(report.lines[0], report.exitCode, lines);
  }
}
