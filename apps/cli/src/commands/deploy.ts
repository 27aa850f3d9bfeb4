import type { BatchResult, PutDefinitionResponse } from "@baton/actions";
import type { Command } from "commander";
import { act, type ContextFactory, examples } from "../command-kit.js";
import { withProblemLocations } from "../definition-errors.js";
import { loadDefinitions } from "../definition-files.js";

export function registerDeploy(program: Command, makeContext: ContextFactory): void {
  const command = program
    .command("deploy")
    .summary("register definitions (YAML or JSON), optionally as one atomic batch on a channel")
    .description(
      "Registers every definition in FILES (files, quoted globs or directories; YAML with several documents and anchors, or JSON). " +
        "Without --channel each one is put on its own; with --channel they are sent as one atomic batch that also points the channel at the new versions. " +
        "Prints one line per process: name vN (new|unchanged, previous vM).",
    )
    .argument("<files...>", "definition files, globs or directories")
    .option("-c, --channel <channel>", "deploy as one atomic batch and point this channel at the versions")
    .action(
      act(makeContext, async (ctx, [files], options) => {
        const loaded = await loadDefinitions(files, ctx.io.cwd);
        const api = await ctx.api();
        const { out } = ctx;
        if (options.channel) {
          const results = await withProblemLocations(loaded, true, () =>
            api.call("putDefinitionBatch", {
              body: { definitions: loaded.map((item) => item.definition), channel: options.channel },
            }),
          );
          if (out.json) return out.printJson(results);
          for (const result of results) out.info(deployLine(result, result.previous, options.channel));
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
        if (out.json) out.printJson(responses);
      }),
    );
  examples(command, [
    "baton deploy definitions/orders.yaml",
    "baton deploy 'definitions/**/*.yaml' --channel staging",
    "baton deploy definitions/ --channel staging --json",
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
