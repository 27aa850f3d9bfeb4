import type { ErrorOutcome, SignalBody } from "@baton/actions";
import type { Command } from "commander";
import { UsageError } from "../cli-error.js";
import { act, type ContextFactory, examples } from "../command-kit.js";
import { readJsonArgument } from "../input-values.js";
import { resolveInstanceId } from "../last-instance.js";

export function registerSignal(program: Command, makeContext: ContextFactory): void {
  const signal = program
    .command("signal")
    .summary("deliver an outcome to an external task by instance and task")
    .description(
      "Delivers a result (or, with --error, an error outcome declared in the task's raises) to the external task TASK of instance ID. " +
        "When the task is waiting now it resolves; otherwise the outcome is buffered until the task next waits. " +
        "--only-if-waiting refuses (exit 1, nothing buffered) when the task is not waiting now; --task-epoch N delivers only to that visit of the task (the TASK_EPOCH baton tasks lists while it waits), refusing a later one. Needs the worker permission.",
    )
    .argument("<id>", "instance id, or @last")
    .argument("<task>", "the external task's id")
    .option("-r, --result <json>", "the result: JSON, or @file.json (omitted: no result)")
    .option("--error <code>", "send an error outcome with this code instead of a result")
    .option("--message <message>", "with --error: a message")
    .option("--data <json>", "with --error: data, JSON or @file.json")
    .option("--only-if-waiting", "deliver only if the task is waiting now; otherwise exit 1 and buffer nothing")
    .option("--task-epoch <n>", "deliver only to this visit of the task (implies --only-if-waiting)")
    .action(
      act(makeContext, async (ctx, [idArgument, task], options) => {
        if (options.error !== undefined && options.result !== undefined)
          throw new UsageError("give either --result or --error, not both");
        if (options.error === undefined && (options.message !== undefined || options.data !== undefined)) {
          throw new UsageError("--message and --data go with --error");
        }
        const taskEpoch = options.taskEpoch === undefined ? undefined : visitNumber(options.taskEpoch);
        const id = await resolveInstanceId(ctx.io, idArgument);
        let body: SignalBody;
        if (options.error !== undefined) {
          const error: ErrorOutcome = { code: options.error };
          if (options.message !== undefined) error.message = options.message;
          if (options.data !== undefined) error.data = await readJsonArgument(options.data, "--data", ctx.io.cwd);
          body = { instance_id: id, task, error };
        } else {
          body = { instance_id: id, task };
          if (options.result !== undefined)
            body.result = await readJsonArgument(options.result, "--result", ctx.io.cwd);
        }
        if (options.onlyIfWaiting) body.only_if_waiting = true;
        if (taskEpoch !== undefined) body.task_epoch = taskEpoch;
        const api = await ctx.api();
        const response = await api.call("signalExternalTask", { body });
        if (ctx.out.json) return ctx.out.printJson(response);
        ctx.out.info(
          response.delivered
            ? `${id} task ${task}: delivered`
            : response.buffered
              ? `${id} task ${task}: buffered until the task waits`
              : `${id} task ${task}: not delivered`,
        );
      }),
    );
  examples(signal, [
    "baton signal @last approve --result '{\"approved\": true}'",
    "baton signal @last approve --result '{\"approved\": true}' --task-epoch 4",
    "baton signal 01939d6e-8a5b-7c1e-9f00-2b6f1c2d3e4f approve --error rejected --message 'budget exceeded'",
  ]);
}

/** `--task-epoch`: a visit number as the API bounds it (docs/api.md "Signal only if waiting"). */
function visitNumber(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n > 2_147_483_647)
    throw new UsageError(
      `--task-epoch: expected a whole number from 0 to 2147483647 (a visit's task_epoch), got "${text}"`,
    );
  return n;
}
