import type { ValidateResult } from "@baton/actions";
import type { Command } from "commander";
import { act, type ContextFactory, examples } from "../command-kit.js";
import { withProblemLocations } from "../definition-errors.js";
import { loadDefinitions } from "../definition-files.js";
import { splitSchedules } from "../schedule-documents.js";
import { formatJson, type Output } from "../output.js";

export function registerValidate(program: Command, makeContext: ContextFactory): void {
  const command = program
    .command("validate")
    .summary("check definitions without saving them")
    .description(
      "Sends the definitions in FILES to the server's validator (nothing is saved). Prints every problem with its file, process, task and field and exits 1 when there is any. " +
        "--schemas also prints the inferred input, output and per-task schemas.",
    )
    .argument("<files...>", "definition files, globs or directories")
    .option("--schemas", "print the inferred schemas of every process")
    .action(
      act(makeContext, async (ctx, [files], options) => {
        // Schedules (`kind: schedule`) are checked by `baton deploy`, against the version they start.
        const loaded = splitSchedules(await loadDefinitions(files, ctx.io.cwd)).definitions;
        const api = await ctx.api();
        const results = await withProblemLocations(loaded, true, () =>
          api.call("validateDefinitions", { body: loaded.map((item) => item.definition) }),
        );
        const { out } = ctx;
        if (out.json) return out.printJson(results);
        for (const result of results) {
          out.info(`ok  ${result.process} (would be v${result.version})`);
          if (options.schemas) printSchemas(out, result);
        }
      }),
    );
  examples(command, [
    "baton validate definitions/*.yaml",
    "baton validate orders.yaml --schemas",
    "baton validate definitions/ --json",
  ]);
}

function printSchemas(out: Output, result: ValidateResult): void {
  const block = (label: string, value: unknown, indent: string) => {
    if (value === undefined) return;
    const lines = formatJson(value).split("\n");
    out.print(`${indent}${label}: ${lines[0]}`);
    for (const line of lines.slice(1)) out.print(`${indent}${line}`);
  };
  block("input", result.process_input, "    ");
  block("output", result.process_output, "    ");
  for (const [id, task] of Object.entries(result.tasks ?? {})) {
    out.print(`    task ${id}${task.action_type ? ` (${task.action_type})` : ""}:`);
    block("input", task.input, "      ");
    block("result", task.result, "      ");
    block("output", task.output, "      ");
  }
  if (result.$defs && Object.keys(result.$defs).length > 0) block("$defs", result.$defs, "    ");
}
