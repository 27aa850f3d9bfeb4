import type { ListExternalTasksQuery, WaitingExternalTask } from "@baton/actions";
import type { Command } from "commander";
import { UsageError } from "../cli-error.js";
import { act, type ContextFactory, examples, type Options } from "../command-kit.js";
import { resolveInstanceId } from "../last-instance.js";
import type { Output } from "../output.js";
import { parseVersion } from "../process-ref.js";
import { colorStatus } from "../style.js";
import { addListOptions, showList } from "./list-options.js";

export function registerTasks(program: Command, makeContext: ContextFactory): void {
  const tasks = addListOptions(
    program
      .command("tasks")
      .summary("list waiting external tasks, oldest first, with each visit's task_epoch")
      .description(
        "Lists the external tasks instances wait on now (GET /external-tasks), claimed or not, oldest park first; nothing is claimed. " +
          "TASK_EPOCH is the visit: pass it to baton signal --task-epoch to answer that visit only. Filters combine.",
      )
      .option("-p, --process <process>", "only tasks of this process")
      .option("--version <n>", "only tasks of this version of the process")
      .option("--task <task>", "only this task id (pair with --process)")
      .option("--claimed", "only tasks a worker's live claim holds")
      .option("--unclaimed", "only tasks claimable now")
      .option("--instance <id>", "only the task of this instance (or @last)"),
  ).action(
    act(makeContext, async (ctx, _args, options) => {
      const query = await taskQuery(options, (id) => resolveInstanceId(ctx.io, id));
      await showList(ctx, "listExternalTasks", { query }, options, "no waiting tasks", (items) =>
        printTaskTable(ctx.out, items),
      );
    }),
  );
  examples(tasks, [
    "baton tasks",
    "baton tasks --process orders --task approve --unclaimed",
    "baton tasks --instance @last --json",
    "baton signal @last approve --result '{\"approved\": true}' --task-epoch 4   # TASK_EPOCH from baton tasks",
  ]);
}

async function taskQuery(
  options: Options,
  instanceId: (id: string) => Promise<string>,
): Promise<ListExternalTasksQuery> {
  if (options.claimed && options.unclaimed) throw new UsageError("give --claimed or --unclaimed, not both");
  const query: ListExternalTasksQuery = {};
  if (options.process !== undefined) query.process = options.process;
  if (options.version !== undefined) query.version = parseVersion(options.version, "--version");
  if (options.task !== undefined) query.task = options.task;
  if (options.claimed) query.claimed = true;
  if (options.unclaimed) query.claimed = false;
  if (options.instance !== undefined) query.instance_id = await instanceId(options.instance);
  return query;
}

function printTaskTable(out: Output, rows: WaitingExternalTask[]): void {
  out.table(
    [
      { header: "INSTANCE", keep: true },
      { header: "PROCESS" },
      { header: "VERSION", align: "right", keep: true },
      { header: "TASK" },
      { header: "TASK_EPOCH", align: "right", keep: true },
      { header: "STATUS", keep: true, dropOrder: 3 },
      { header: "WAITING SINCE", keep: true },
      { header: "CLAIMED BY", optional: true, dropOrder: 1 },
      { header: "DEADLINE", optional: true, keep: true, dropOrder: 2 },
    ],
    rows.map((row) => [
      row.instance_id,
      row.process,
      `v${row.version}`,
      row.task,
      String(row.task_epoch),
      { text: row.status, paint: (text: string) => colorStatus(out.style, text) },
      row.waiting_since,
      row.claimed_by ?? "",
      row.deadline ?? "",
    ]),
  );
}
