import type { CompatBody } from "@baton/actions";
import type { Command } from "commander";
import { CliError, UsageError } from "../cli-error.js";
import { act, type ContextFactory, collect, collectList, examples } from "../command-kit.js";
import { printCompatReport } from "../compat-report.js";
import { parseSelector } from "../compat-selector.js";
import { ExitCode } from "../exit-code.js";

export function registerCompat(program: Command, makeContext: ContextFactory): void {
  const command = program
    .command("compat")
    .summary("check whether instances and callers of one set of versions can move to another")
    .description(
      "Compares two sets of versions (upgrade: can a running instance continue; contract: are input and output still honoured) and prints the changed tasks and the issues, gating ones first. " +
        "A selector is a channel name, NAME@VERSION pairs (VERSION may also be a channel; comma-separated or repeated), or definition files, globs or directories. Exits 1 when the check does not pass.",
    )
    .requiredOption("--from <selector>", "what runs now: channel, NAME@VERSION pairs or files", collect)
    .requiredOption("--to <selector>", "what it would move to: channel, NAME@VERSION pairs or files", collect)
    .option("-p, --process <process>", "compare only this process")
    .option("--ignore <member>", "excuse a member from the pass result (only: contract)", collectList)
    .action(
      act(makeContext, async (ctx, _args, options) => {
        const ignore = (options.ignore ?? []) as string[];
        for (const member of ignore) {
          if (member !== "contract")
            throw new UsageError(`--ignore: unknown member "${member}"; only "contract" can be ignored`);
        }
        const body: CompatBody = {
          from: await parseSelector(options.from, "--from", ctx.io.cwd),
          to: await parseSelector(options.to, "--to", ctx.io.cwd),
        };
        if (options.process) body.process = options.process;
        if (ignore.length > 0) body.ignore = ["contract"];
        const api = await ctx.api();
        const response = await api.call("compatDefinitions", { body });
        if (ctx.out.json) ctx.out.printJson(response);
        else {
          printCompatReport(ctx.out, response);
          // docs/schedules.md "Checked before it runs": schedules the move would start with a refused input.
          for (const warning of response.schedule_warnings ?? []) ctx.out.print(`warning: ${warning.message}`);
        }
        if (!response.passes) {
          const gating = (response.processes ?? [])
            .flatMap((report) => report.issues ?? [])
            .filter((issue) => issue.gating).length;
          throw new CliError(
            `compat does not pass (${gating} gating issue${gating === 1 ? "" : "s"})`,
            ExitCode.failed,
          );
        }
      }),
    );
  examples(command, [
    "baton compat --from production --to staging",
    "baton compat --from orders@3 --to orders@4",
    "baton compat --from production --to 'definitions/*.yaml' --process orders",
    "baton compat --from production --to staging --ignore contract --json",
  ]);
}
