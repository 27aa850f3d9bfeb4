import type { Command } from "commander";
import { versionOf } from "../channel-version.js";
import { UsageError } from "../cli-error.js";
import { act, type ContextFactory, examples } from "../command-kit.js";
import { formatJson } from "../output.js";
import { parseProcessRef } from "../process-ref.js";
import { toYaml } from "../yaml-json.js";
import { addListOptions, showList } from "./list-options.js";
import { actorText } from "../actor-text.js";

export function registerDefinitions(program: Command, makeContext: ContextFactory): void {
  const definitions = addListOptions(
    program
      .command("definitions")
      .summary("list registered definition versions, newest first; get one")
      .description("Lists registered definition versions, newest first: every process, or only PROCESS.")
      .argument("[process]", "only this process"),
  ).action(
    act(makeContext, async (ctx, [process], options) => {
      const query = process ? { name: process } : {};
      const none = process ? `no definitions named ${process}` : "no definitions";
      await showList(ctx, "listDefinitions", { query }, options, none, (items) =>
        ctx.out.table(
          [
            { header: "PROCESS" },
            { header: "VERSION", align: "right" },
            { header: "CREATED", keep: true, dropOrder: 2 },
            { header: "ACTOR", optional: true, dropOrder: 1 },
            { header: "RAISES", optional: true },
          ],
          items.map((item) => [
            item.name,
            `v${item.version}`,
            item.created_at,
            actorText(item.actor, item.actor_label),
            (item.raises ?? []).join(", "),
          ]),
        ),
      );
    }),
  );
  examples(definitions, ["baton definitions", "baton definitions orders", "baton definitions --all --json"]);

  const get = definitions
    .command("get")
    .description(
      "Prints a registered definition in its stored canonical form (the latest version, PROCESS@VERSION, or PROCESS@CHANNEL), as YAML or, with --format json, as JSON; both can be deployed again. --json prints the API's response (summary fields plus `definition`).",
    )
    .argument("<process>", "PROCESS, PROCESS@VERSION or PROCESS@CHANNEL")
    .option("--format <format>", "yaml or json", "yaml")
    .action(
      act(makeContext, async (ctx, [reference], options) => {
        if (options.format !== "yaml" && options.format !== "json") {
          throw new UsageError(`--format: expected yaml or json, got "${options.format}"`);
        }
        const ref = parseProcessRef(reference);
        const api = await ctx.api();
        // Version 0 asks the server for the latest one.
        const stored = await api.call("getDefinition", {
          params: { name: ref.process, version: (await versionOf(api, ref)) ?? 0 },
        });
        const { out } = ctx;
        if (out.json) return out.printJson(stored);
        if (options.format === "json") return out.print(formatJson(stored.definition));
        out.hint(
          `# ${stored.name} v${stored.version}, registered ${stored.created_at}${stored.actor ? ` by ${actorText(stored.actor, stored.actor_label)}` : ""}`,
        );
        ctx.io.stdout.write(toYaml(stored.definition));
      }),
    );
  examples(get, [
    "baton definitions get orders",
    "baton definitions get orders@3 --format json > orders.json",
    "baton definitions get orders@production --json",
  ]);
}
