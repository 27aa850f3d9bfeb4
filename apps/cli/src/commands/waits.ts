import type { Command } from "commander";
import { act, type ContextFactory, examples } from "../command-kit.js";

/** `baton waits`: the instances waiting for flow control, grouped by scope and key (docs/flow-control.md "Watching it"). */
export function registerWaits(program: Command, makeContext: ContextFactory): void {
  const waits = program
    .command("waits")
    .summary("instances waiting for flow control, grouped by scope and key")
    .description(
      "Lists the waits for flow-control slots (concurrency) and start permits (rate_limit), grouped by scope and key, the longest queues first, " +
        'with the time the oldest began (GET /instances/waits, docs/flow-control.md "Watching it"). ' +
        "List one group's instances with `baton instances --waiting-for <reason> --wait-key <key>`; see one with `baton get <id> --detail`.",
    )
    .option("-p, --process <name>", "only the scopes of this process")
    .option("--reason <reason>", "only this kind of wait: concurrency or rate_limit")
    .option("-n, --limit <n>", "groups to show (1-1000)", (v) => Number(v))
    .action(
      act(
        makeContext,
        async (ctx, _args, options: { process?: string; reason?: "concurrency" | "rate_limit"; limit?: number }) => {
          const api = await ctx.api();
          const result = await api.call("listFlowWaits", {
            query: { process: options.process, reason: options.reason, limit: options.limit },
          });
          const { out } = ctx;
          if (out.json) return out.printJson(result);
          if (result.groups.length === 0) return out.print("nothing waits for flow control");
          for (const g of result.groups)
            out.print(
              `${String(g.waiting).padStart(6)}  ${g.reason.padEnd(11)}  ${g.scope}  key "${g.key}"  oldest since ${g.oldest_since}`,
            );
          if (result.truncated) out.print(out.style.dim("(more groups exist: raise --limit)"));
        },
      ),
    );
  examples(waits, ["baton waits", "baton waits --process order-flow --reason concurrency", "baton waits --json"]);
}
