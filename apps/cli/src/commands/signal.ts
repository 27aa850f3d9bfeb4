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
        "When the task is waiting now it resolves; otherwise the outcome is buffered until the task next waits. Needs the worker permission.",
    )
    .argument("<id>", "instance id, or @last")
    .argument("<task>", "the external task's id")
    .option("-r, --result <json>", "the result: JSON, or @file.json (omitted: no result)")
    .option("--error <code>", "send an error outcome with this code instead of a result")
    .option("--message <message>", "with --error: a message")
    .option("--data <json>", "with --error: data, JSON or @file.json")
    .action(
      act(makeContext, async (ctx, [idArgument, task], options) => {
        if (options.error !== undefined && options.result !== undefined)
          throw new UsageError("give either --result or --error, not both");
        if (options.error === undefined && (options.message !== undefined || options.data !== undefined)) {
          throw new UsageError("--message and --data go with --error");
        }
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
    "baton signal 01939d6e-8a5b-7c1e-9f00-2b6f1c2d3e4f approve --error rejected --message 'budget exceeded'",
  ]);
}
