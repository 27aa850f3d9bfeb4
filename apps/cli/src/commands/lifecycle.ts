import type { LifecycleResponse } from "@baton/actions";
import type { Command } from "commander";
import { act, type ContextFactory, examples } from "../command-kit.js";
import type { Context } from "../context.js";
import { resolveInstanceId } from "../last-instance.js";
import { UsageError } from "../cli-error.js";
import { parsePositiveInteger } from "../process-ref.js";
import { runBulk } from "./bulk.js";

const WHERE_HELP =
  "act on every root these filters select instead of one id, e.g. status=failed,error_code=http.503 (keys: status, phase, task, error_code, process, version, key, created_after, created_before, updated_after, updated_before)";

/** The --where group of every lifecycle verb, after the verb's own options (help lists them in that order). */
export function addWhereOptions(command: Command): Command {
  return command
    .option("--where <filters>", WHERE_HELP)
    .option("--dry-run", "with --where: list the roots it would act on, change nothing")
    .option("--limit <n>", "with --where: roots per server call (1 to 1000, default 100)");
}

/** One id, or --where; never both, never neither. */
export function target(idArgument: string | undefined, where: string | undefined): void {
  if (idArgument !== undefined && where !== undefined) throw new UsageError("give an instance id or --where, not both");
  if (idArgument === undefined && where === undefined)
    throw new UsageError("give an instance id (or @last), or --where FILTERS");
}

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
    const command = addWhereOptions(
      program
        .command(verb.name)
        .summary(verb.summary)
        .description(
          `${verb.description} ID must be a root id (or @last); --where acts on every root the filters select.`,
        )
        .argument("[id]", "root instance id, or @last"),
    ).action(
      act(makeContext, async (ctx, [idArgument], options) => {
        target(idArgument, options.where);
        if (options.where !== undefined)
          return runBulk(ctx, verb.name as "pause" | "resume" | "cancel", options.where, bulkOptions(options));
        return lifecycle(ctx, verb.action, idArgument, {}, verb.nothingToDo);
      }),
    );
    examples(command, [
      `baton ${verb.name} @last`,
      `baton ${verb.name} 01939d6e-8a5b-7c1e-9f00-2b6f1c2d3e4f --json`,
      `baton ${verb.name} --where process=orders,status=running --dry-run`,
    ]);
  }

  const retry = addWhereOptions(
    program
      .command("retry")
      .summary("retry a failed instance where it died")
      .description(
        "Revives a failed root instance where it died: the failing task gets another attempt beyond its on_error budget. " +
          "An instance that failed on an only_once task needs --force (it may run that task's action twice).",
      )
      .argument("[id]", "root instance id, or @last")
      .option("--force", "override the only_once retry protection"),
  ).action(
    act(makeContext, async (ctx, [idArgument], options) => {
      target(idArgument, options.where);
      if (options.where !== undefined)
        return runBulk(ctx, "retry", options.where, {
          ...bulkOptions(options),
          extra: options.force ? { force: true } : {},
        });
      return lifecycle(ctx, "retryInstance", idArgument, options.force ? { force: true } : {}, "needed no retry");
    }),
  );
  examples(retry, [
    "baton retry @last",
    "baton retry 01939d6e-8a5b-7c1e-9f00-2b6f1c2d3e4f --force",
    "baton retry --where status=failed,error_code=http.503 --dry-run",
  ]);

  const upgrade = addWhereOptions(
    program
      .command("upgrade")
      .summary("move a live instance tree to another version")
      .description(
        "Moves a live root instance and every live descendant to another version of its process. The server refuses (409) when the upgrade check fails for the tasks the tree sits on; check first with baton compat.",
      )
      .argument("[id]", "root instance id, or @last")
      .requiredOption("--to <version>", "the version to move to")
      .option("--from <version>", "the version it runs now (default: read from the instance; required with --where)"),
  ).action(
    act(makeContext, async (ctx, [idArgument], options) => {
      target(idArgument, options.where);
      const to = parsePositiveInteger(options.to, "--to");
      if (options.where !== undefined) {
        if (options.from === undefined) throw new UsageError("--where needs --from: the version the trees run now");
        return runBulk(ctx, "upgrade", options.where, {
          ...bulkOptions(options),
          extra: { from_version: parsePositiveInteger(options.from, "--from"), to_version: to },
        });
      }
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
    "baton upgrade --where process=orders --from 3 --to 4 --dry-run",
    "baton upgrade 01939d6e-8a5b-7c1e-9f00-2b6f1c2d3e4f --from 3 --to 4 --json",
  ]);
}

export function bulkOptions(options: Record<string, any>): { dryRun: boolean; limit?: number } {
  return {
    dryRun: Boolean(options.dryRun),
    ...(options.limit === undefined ? {} : { limit: parsePositiveInteger(options.limit, "--limit") }),
  };
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
