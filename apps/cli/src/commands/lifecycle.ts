import type { LifecycleResponse } from "@baton/actions";
import type { Command } from "commander";
import { act, type ContextFactory, examples } from "../command-kit.js";
import type { Context } from "../context.js";
import { resolveInstanceId } from "../last-instance.js";
import { parsePositiveInteger } from "../process-ref.js";

type LifecycleAction = "pauseInstance" | "resumeInstance" | "cancelInstance" | "retryInstance";

const VERBS: { name: string; action: LifecycleAction; summary: string; description: string; nothingToDo: string }[] = [
  {
    name: "pause",
    action: "pauseInstance",
    summary: "pause an instance tree",
    description:
      "Pauses a root instance and its whole tree at the next task boundary (a task in flight finishes first).",
    nothingToDo: "was not running; nothing to pause",
  },
  {
    name: "resume",
    action: "resumeInstance",
    summary: "resume a paused instance tree",
    description:
      "Resumes a paused root instance and its tree exactly where it stopped. A settled instance cannot be resumed (409).",
    nothingToDo: "is already advancing; nothing to resume",
  },
  {
    name: "cancel",
    action: "cancelInstance",
    summary: "cancel an instance tree (irreversible)",
    description: "Cancels a root instance and its whole tree at the next task boundary. Terminal and irreversible.",
    nothingToDo: "has nothing live to cancel",
  },
];

export function registerLifecycle(program: Command, makeContext: ContextFactory): void {
  for (const verb of VERBS) {
    const command = program
      .command(verb.name)
      .summary(verb.summary)
      .description(`${verb.description} ID must be a root id (or @last).`)
      .argument("<id>", "root instance id, or @last")
      .action(
        act(makeContext, async (ctx, [idArgument]) => lifecycle(ctx, verb.action, idArgument, {}, verb.nothingToDo)),
      );
    examples(command, [`baton ${verb.name} @last`, `baton ${verb.name} 01939d6e-8a5b-7c1e-9f00-2b6f1c2d3e4f --json`]);
  }

  const retry = program
    .command("retry")
    .summary("retry a failed instance where it died")
    .description(
      "Revives a failed root instance where it died: the failing task gets another attempt beyond its on_error budget. " +
        "An instance that failed on an only_once task needs --force (it may run that task's action twice).",
    )
    .argument("<id>", "root instance id, or @last")
    .option("--force", "override the only_once retry protection")
    .action(
      act(makeContext, async (ctx, [idArgument], options) =>
        lifecycle(ctx, "retryInstance", idArgument, options.force ? { force: true } : {}, "needed no retry"),
      ),
    );
  examples(retry, ["baton retry @last", "baton retry 01939d6e-8a5b-7c1e-9f00-2b6f1c2d3e4f --force"]);

  const upgrade = program
    .command("upgrade")
    .summary("move a live instance tree to another version")
    .description(
      "Moves a live root instance and every live descendant to another version of its process. The server refuses (409) when the upgrade check fails for the tasks the tree sits on; check first with baton compat.",
    )
    .argument("<id>", "root instance id, or @last")
    .requiredOption("--to <version>", "the version to move to")
    .option("--from <version>", "the version it runs now (default: read from the instance)")
    .action(
      act(makeContext, async (ctx, [idArgument], options) => {
        const to = parsePositiveInteger(options.to, "--to");
        const id = await resolveInstanceId(ctx.io, idArgument);
        const api = await ctx.api();
        const from =
          options.from !== undefined
            ? parsePositiveInteger(options.from, "--from")
            : (await api.call("getInstance", { params: { id } })).version;
        const response = await api.call("upgradeInstance", {
          params: { id },
          body: { from_version: from, to_version: to },
        });
        const { out } = ctx;
        if (out.json) return out.printJson(response);
        if (!response.upgraded) return out.info(`${id}: not upgraded (already on v${to}?)`);
        out.info(`${id}: upgraded v${from} → v${to}`);
        for (const move of response.moves ?? []) {
          out.info(
            `  ${move.instance_id}  ${move.process} v${move.from_version} → v${move.to_version}  at task ${move.task}`,
          );
        }
      }),
    );
  examples(upgrade, [
    "baton upgrade @last --to 4",
    "baton upgrade 01939d6e-8a5b-7c1e-9f00-2b6f1c2d3e4f --from 3 --to 4 --json",
  ]);
}

async function lifecycle(
  ctx: Context,
  action: LifecycleAction,
  idArgument: string,
  query: { force?: boolean },
  nothingToDo: string,
): Promise<void> {
  const id = await resolveInstanceId(ctx.io, idArgument);
  const api = await ctx.api();
  const request = action === "retryInstance" ? { params: { id }, query } : { params: { id } };
  const response = (await api.callRaw(action, request as never)) as {
    status: number;
    data: LifecycleResponse | undefined;
  };
  const { out } = ctx;
  // A 204 has no body; --json prints null for it so scripts always get JSON.
  if (out.json) return out.printJson(response.data ?? null);
  if (response.status === 204 || !response.data) return out.info(`${id} ${nothingToDo}`);
  const { outcome, status, instances } = response.data;
  const draining = response.status === 202 ? "; a task in flight is still draining" : "";
  out.info(`${id}: ${outcome} (${instances} instance${instances === 1 ? "" : "s"}, status ${status}${draining})`);
}
