import type { BatchResult, PutDefinitionResponse } from "@baton/actions";
import type { Command } from "commander";
import { act, type ContextFactory, examples } from "../command-kit.js";
import { withProblemLocations } from "../definition-errors.js";
import { loadDefinitions } from "../definition-files.js";
import { splitSchedules } from "../schedule-documents.js";

export function registerDeploy(program: Command, makeContext: ContextFactory): void {
  const command = program
    .command("deploy")
    .summary("register definitions (YAML or JSON), optionally as one atomic batch on a channel")
    .description(
      "Registers every definition in FILES (files, quoted globs or directories; YAML with several documents and anchors, or JSON). " +
        "Without --channel each one is put on its own; with --channel they are sent as one atomic batch that also points the channel at the new versions. " +
        "Prints one line per process: name vN (new|unchanged, previous vM). " +
        "A document with `kind: schedule` is a schedule (docs/schedules.md): it is created or replaced after the definitions.",
    )
    .argument("<files...>", "definition files, globs or directories")
    .option("-c, --channel <channel>", "deploy as one atomic batch and point this channel at the versions")
    .action(
      act(makeContext, async (ctx, [files], options) => {
        const { definitions: loaded, schedules } = splitSchedules(await loadDefinitions(files, ctx.io.cwd));
        const api = await ctx.api();
        const { out } = ctx;
        // Definitions first: a schedule's input is checked against the version it starts.
        const putSchedules = async () => {
          const answers = [];
          for (const schedule of schedules) {
            const answer = await api.call("putSchedule", { params: { name: schedule.name }, body: schedule.body });
            answers.push(answer);
            if (!out.json) out.info(`schedule ${answer.name} (${answer.created ? "created" : "replaced"})`);
          }
          return answers;
        };
        if (loaded.length === 0) {
          const answers = await putSchedules();
          if (out.json) out.printJson(answers);
          return;
        }
        if (options.channel) {
          const results = await withProblemLocations(loaded, true, () =>
            api.call("putDefinitionBatch", {
              body: { definitions: loaded.map((item) => item.definition), channel: options.channel },
            }),
          );
          if (!out.json) for (const result of results) out.info(deployLine(result, result.previous, options.channel));
          const answers = await putSchedules();
          if (out.json) out.printJson(schedules.length > 0 ? { definitions: results, schedules: answers } : results);
          return;
        }
        const responses: PutDefinitionResponse[] = [];
        for (const item of loaded) {
          const response = await withProblemLocations(
            [item],
            false,
            () => api.call("putDefinition", { body: item.definition }),
            responses.length,
          );
          responses.push(response);
          if (!out.json) out.info(deployLine(response, response.saved ? response.version - 1 : response.version));
        }
        const answers = await putSchedules();
        if (out.json) out.printJson(schedules.length > 0 ? { definitions: responses, schedules: answers } : responses);
      }),
    );
  examples(command, [
    "baton deploy definitions/orders.yaml",
    "baton deploy 'definitions/**/*.yaml' --channel staging",
    "baton deploy definitions/ --channel staging --json",
    "baton deploy orders.yaml nightly-schedule.yaml",
  ]);
}

/** "orders v3 (new, previous v2)"; `previous` 0/null/equal to the version is not shown. */
export function deployLine(
  result: PutDefinitionResponse | BatchResult,
  previous: number | null | undefined,
  channel?: string,
): string {
  const parts = [result.saved ? "new" : "unchanged"];
  if (previous && previous !== result.version) parts.push(`previous v${previous}${channel ? ` on ${channel}` : ""}`);
  else if (channel && !previous) parts.push(`first on ${channel}`);
  return `${result.name} v${result.version} (${parts.join(", ")})`;
}
