import type { DefinitionSummary } from "@baton/actions";
import type { Command } from "commander";
import { CliError } from "../cli-error.js";
import { act, type ContextFactory, examples } from "../command-kit.js";
import { ExitCode } from "../exit-code.js";
import { listPages } from "../list-pages.js";
import { parseProcessRef } from "../process-ref.js";
import { addListOptions, hintMorePages } from "./list-options.js";

export function registerDefinitions(program: Command, makeContext: ContextFactory): void {
  const definitions = addListOptions(
    program
      .command("definitions")
      .summary("list registered definition versions, newest first")
      .description(
        "Lists registered definition versions, newest first. With PROCESS only that process's versions: the API lists every process, so the CLI follows every page and keeps the matching rows (--limit then caps the rows shown).",
      )
      .argument("[process]", "only this process"),
  ).action(
    act(makeContext, async (ctx, [process], options) => {
      const api = await ctx.api();
      const { out } = ctx;
      let items: DefinitionSummary[];
      if (process) {
        const all = await listPages(api, "listDefinitions", { query: {} }, { all: true });
        items = all.items.filter((item) => item.name === process);
        if (options.limit && !options.all) items = items.slice(0, options.limit);
        if (out.json) return out.printJson({ items });
      } else {
        const result = await listPages(api, "listDefinitions", { query: {} }, options);
        if (out.json) return out.printJson(result.single ?? { items: result.items });
        items = result.items;
        hintMorePages(out, result.page, options.all);
      }
      if (items.length === 0) return out.info(process ? `no definitions named ${process}` : "no definitions");
      out.table(
        [{ header: "PROCESS" }, { header: "VERSION", align: "right" }, { header: "CREATED", dropOrder: 2 }, { header: "ACTOR", optional: true, dropOrder: 1 }, { header: "RAISES", optional: true }],
        items.map((item) => [item.name, `v${item.version}`, item.created_at, item.actor ?? "", (item.raises ?? []).join(", ")]),
      );
    }),
  );
  examples(definitions, ["baton definitions", "baton definitions orders", "baton definitions --all --json"]);

  const get = definitions
    .command("get")
    .description("Prints a registered definition (latest version unless @VERSION is given) as YAML, or JSON with --json.")
    .argument("<process>", "PROCESS or PROCESS@VERSION")
    .action(
      act(makeContext, async (_ctx, [reference]) => {
        const { process, version } = parseProcessRef(reference);
        // The API (packages/actions registry) declares no endpoint returning a stored definition's
        // body; until it does, say so plainly instead of guessing a path.
        throw new CliError(
          `unsupported: the server's API has no endpoint that returns a registered definition yet, so ${process}${version ? `@${version}` : ""} cannot be shown`,
          ExitCode.failed,
        );
      }),
    );
  examples(get, ["baton definitions get orders", "baton definitions get orders@3 --json"]);
}
