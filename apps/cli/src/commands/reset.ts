// `baton reset`: rerun a root from a task with the state it had there (POST /instances/{id}/reset,
// docs/safe-change.md "Reset"), or every root the filters select (--where, the bulk verb).
import type { Command } from "commander";
import { act, type ContextFactory, examples } from "../command-kit.js";
import { resolveInstanceId } from "../last-instance.js";
import { runBulk } from "./bulk.js";
import { addWhereOptions, bulkOptions, target } from "./lifecycle.js";

export function registerReset(program: Command, makeContext: ContextFactory): void {
  const reset = addWhereOptions(
    program
      .command("reset")
      .summary("rerun an instance tree from a task")
      .description(
        "Moves a failed, raised, completed or paused root back to a task with the exact state it had when it first entered it; outputs of later tasks are dropped from the state (the logs keep them). " +
          "Live children spawned after that point are cancelled, settled ones detached. An only_once task entered after the point needs --force. A paused tree stays paused.",
      )
      .argument("[id]", "root instance id, or @last")
      .requiredOption("--to <task>", "the task to go back to")
      .option("--force", "reset even though an only_once task after the point may run again")
      .option("--paused", "land the root paused (to upgrade it before it runs again)"),
  ).action(
    act(makeContext, async (ctx, [idArgument], options) => {
      target(idArgument, options.where);
      const body = {
        to_task: String(options.to),
        ...(options.force ? { force: true } : {}),
        ...(options.paused ? { paused: true } : {}),
      };
      if (options.where !== undefined)
        return runBulk(ctx, "reset", options.where, { ...bulkOptions(options), extra: body });
      const id = await resolveInstanceId(ctx.io, idArgument);
      const api = await ctx.api();
      const answer = await api.call("resetInstance", { params: { id }, body });
      const { out } = ctx;
      if (out.json) return out.printJson(answer);
      const from = answer.restored_from.entered
        ? `the state of its first entry (visit ${answer.restored_from.task_epoch})`
        : `the state visit ${answer.restored_from.task_epoch} left (it never entered ${answer.task})`;
      out.info(
        `${id}: reset to task ${answer.task} (visit ${answer.task_epoch}, status ${answer.status}) with ${from}`,
      );
      if (answer.dropped.length > 0) out.info(`  dropped outputs: ${answer.dropped.join(", ")}`);
      const { cancelled, detached } = answer.children;
      if (cancelled + detached > 0)
        out.info(`  children after the point: ${cancelled} cancelled, ${detached} detached`);
    }),
  );
  examples(reset, [
    "baton reset @last --to reserve",
    "baton reset 01939d6e-8a5b-7c1e-9f00-2b6f1c2d3e4f --to charge --force --json",
    "baton reset --where process=orders,status=failed,task=charge,updated_after=2026-12-07T09:00:00Z --to reserve --dry-run",
  ]);
}
