import { ApiError } from "@baton/actions";
import { CliError } from "./cli-error.js";
import type { LoadedDefinition } from "./definition-files.js";
import { reportError } from "./error-report.js";
import { formatLocatedProblem, locateProblem } from "./problem-locations.js";

/**
 * Re-reports an API error about definitions: a rejected definition (400) gets its field problems
 * located in the user's files; when `done` definitions were already registered, that is said too.
 * Anything else (501, 401, unreachable…) keeps its usual one-line report.
 */
export async function withProblemLocations<T>(
  loaded: LoadedDefinition[],
  sentAsArray: boolean,
  call: () => Promise<T>,
  done = 0,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const rejected = error instanceof ApiError && error.status === 400;
    if (!rejected && done === 0) throw error;
    const report = reportError(error);
    const lines = [report.lines[0]];
    if (rejected) {
      const fields = error.fields ?? [];
      // The located lines carry the server's wording verbatim; the header only counts them.
      if (fields.length > 0)
        lines[0] = `error: ${error.code}: ${fields.length} problem${fields.length === 1 ? "" : "s"} in the definitions`;
      for (const field of fields) lines.push(`  ${formatLocatedProblem(locateProblem(loaded, field, sentAsArray))}`);
      if (fields.length === 0 && !sentAsArray && loaded[0]) {
        lines.push(`  in ${loaded[0].source}${loaded[0].name ? `, process ${loaded[0].name}` : ""}`);
      }
    } else {
      lines.push(...report.lines.slice(1));
    }
    if (done > 0)
      lines.push(`  (${done} definition${done === 1 ? " was" : "s were"} registered before this one failed)`);
    throw new CliError(report.lines[0], report.exitCode, lines);
  }
}
