import type { ActionRequest, ListActionName, ListItem, PageInfo } from "@baton/actions";
import type { Command } from "commander";
import { UsageError } from "../cli-error.js";
import type { Options } from "../command-kit.js";
import type { Context } from "../context.js";
import { listPages } from "../list-pages.js";
import type { Output } from "../output.js";
import { parsePositiveInteger } from "../process-ref.js";

/** --limit and --all, shared by every list command. */
export function addListOptions(command: Command): Command {
  return command
    .option("--limit <n>", "page size, 1 to 100 (default 20)", (value: string) => {
      const limit = parsePositiveInteger(value, "--limit");
      if (limit > 100) throw new UsageError(`--limit: at most 100, got ${limit} (use --all to fetch every page)`);
      return limit;
    })
    .option("--all", "follow every page");
}

/**
 * What every list command prints: with --json the API's page (or, with --all, `{items}` of every
 * page, docs/cli.md "Output"); otherwise `none` when nothing matched, else `print(items)`, then
 * on stderr how many more pages there are.
 */
export async function showList<N extends ListActionName>(
  ctx: Context,
  name: N,
  request: ActionRequest<N>,
  options: Options,
  none: string,
  print: (items: ListItem<N>[]) => void,
): Promise<void> {
  const result = await listPages(await ctx.api(), name, request, options);
  const { out } = ctx;
  if (out.json) return out.printJson(result.single ?? { items: result.items });
  if (result.items.length === 0) out.info(none);
  else print(result.items);
  hintMorePages(out, result.page, options.all);
}

/** After a one-page listing: say how many more there are and how to see them. */
function hintMorePages(out: Output, page: PageInfo, all: boolean | undefined): void {
  if (all || !page.next_cursor) return;
  const more = page.items_after;
  // Past the server's count bound (docs/api.md "Bounded counts") the figure is a lower bound.
  const figure = page.items_after_exact === false ? `more than ${more}` : `${more}`;
  out.hint(`${more > 0 ? `${figure} more` : "more"} not shown; use --all to list every page`);
}
