import {
  FLOW_WAIT_REASONS,
  INSTANCE_PHASES,
  INSTANCE_STATUSES,
  type InstanceRow,
  type ListInstancesQuery,
} from "@baton/actions";
import type { Command } from "commander";
import { UsageError } from "../cli-error.js";
import { act, collectList, type ContextFactory, examples } from "../command-kit.js";
import { parseSince } from "../duration.js";
import type { Output } from "../output.js";
import { colorStatus } from "../style.js";
import { addListOptions, showList } from "./list-options.js";

export function registerInstances(program: Command, makeContext: ContextFactory): void {
  const instances = addListOptions(
    program
      .command("instances")
      .summary("list instances, newest first, with the API's filters")
      .description("Lists instances, newest first: root instances only unless --children. Filters combine.")
      .option(
        "--status <statuses>",
        `only these statuses, comma-separated (${INSTANCE_STATUSES.join(", ")})`,
        collectList,
      )
      .option("-p, --process <process>", "only this process")
      .option("--version <n>", "only this version of the process (0 = any)")
      .option("--phase <phase>", `only this phase (${INSTANCE_PHASES.join(", ")})`)
      .option("--task <task>", "only instances sitting on this task (pair with --process)")
      .option("--error-code <code>", "only instances with this error code")
      .option("--children", "include child instances")
      .option("-k, --key <key>", "only instances started with this business key (exact)")
      .option("--parent <id>", "only the children of this instance")
      .option("--waiting-for <reason>", `only instances waiting for flow control (${FLOW_WAIT_REASONS.join(", ")})`)
      .option("--wait-key <key>", "only instances waiting for flow control on this key")
      .option("--since <duration|timestamp>", "only instances created since (1h, 2d, or an ISO 8601 time)"),
  ).action(
    act(makeContext, async (ctx, _args, options) => {
      const query = instanceQuery(options, ctx.io.now());
      await showList(ctx, "listInstances", { query }, options, "no instances", (items) =>
        printInstanceTable(ctx.out, items),
      );
    }),
  );
  examples(instances, [
    "baton instances",
    "baton instances --status failed,raised --since 1d",
    "baton instances --process orders --task charge --phase external",
    "baton instances --children --all --json",
    "baton instances --key A-1001",
    "baton instances --waiting-for concurrency --wait-key customer-42",
    "baton instances --parent 019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55",
  ]);
}

export function instanceQuery(options: Record<string, any>, now: number): ListInstancesQuery {
  const query: ListInstancesQuery = {};
  if (options.status) {
    for (const status of options.status as string[]) {
      if (!(INSTANCE_STATUSES as readonly string[]).includes(status)) {
        throw new UsageError(`--status: unknown status "${status}"; expected one of ${INSTANCE_STATUSES.join(", ")}`);
      }
    }
    query.status = (options.status as string[]).join(",");
  }
  if (options.phase) {
    if (!(INSTANCE_PHASES as readonly string[]).includes(options.phase)) {
      throw new UsageError(`--phase: unknown phase "${options.phase}"; expected one of ${INSTANCE_PHASES.join(", ")}`);
    }
    query.phase = options.phase;
  }
  if (options.process) query.process = options.process;
  if (options.version !== undefined) {
    const version = /^[0-9]+$/.test(options.version) ? Number(options.version) : Number.NaN;
    if (!Number.isSafeInteger(version))
      throw new UsageError(`--version: expected a version number (0 = any), got "${options.version}"`);
    query.version = version;
  }
  if (options.task) query.task = options.task;
  if (options.errorCode) query.error_code = options.errorCode;
  if (options.children) query.children = true;
  if (options.key !== undefined) query.key = options.key;
  if (options.parent !== undefined) query.parent_id = options.parent;
  if (options.waitingFor !== undefined) {
    if (!(FLOW_WAIT_REASONS as readonly string[]).includes(options.waitingFor))
      throw new UsageError(
        `--waiting-for: unknown reason "${options.waitingFor}"; expected one of ${FLOW_WAIT_REASONS.join(", ")}`,
      );
    query.waiting_for = options.waitingFor;
  }
  if (options.waitKey !== undefined) query.wait_key = options.waitKey;
  if (options.since) query.created_after = parseSince(options.since, now);
  return query;
}

export function printInstanceTable(out: Output, rows: InstanceRow[]): void {
  const showParent = rows.some((row) => row.parent_id);
  const showKey = rows.some((row) => row.key);
  out.table(
    [
      { header: "ID", keep: true },
      ...(showParent ? [{ header: "PARENT", keep: true, dropOrder: 0 }] : []),
      ...(showKey ? [{ header: "KEY", dropOrder: 4 }] : []),
      { header: "PROCESS" },
      { header: "VERSION", align: "right" as const, keep: true },
      { header: "STATUS", keep: true },
      { header: "PHASE", optional: true, dropOrder: 2 },
      { header: "TASK" },
      { header: "UPDATED", keep: true, dropOrder: 1 },
      { header: "ERROR", optional: true, dropOrder: 3 },
    ],
    rows.map((row) => [
      row.id,
      ...(showParent ? [row.parent_id ?? "-"] : []),
      ...(showKey ? [row.key ?? ""] : []),
      row.process,
      `v${row.version}`,
      { text: row.status, paint: (text: string) => colorStatus(out.style, text) },
      row.phase ?? "",
      row.task ?? "",
      row.updated_at,
      row.error_code ?? "",
    ]),
  );
}
