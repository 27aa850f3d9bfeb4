import type { PageInfo } from "@baton/actions";
import type { Command } from "commander";
import { parsePositiveInteger } from "../process-ref.js";
import type { Output } from "../output.js";
import { UsageError } from "../cli-error.js";

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

/** After a one-page listing: say how many more there are and how to see them. */
export function hintMorePages(out: Output, page: PageInfo, all: boolean | undefined): void {
  if (all || !page.next_cursor) return;
  const more = page.items_after;
  out.hint(`${more > 0 ? `${more} more` : "more"} not shown; use --all to list every page`);
}
