import { stringifyJson } from "@baton/expr";
import type { ListInstanceLogsQuery, LogEntry, LogLevel } from "@baton/actions";
import type { Command } from "commander";
import { UsageError } from "../cli-error.js";
import { act, type ContextFactory, examples } from "../command-kit.js";
import type { Context } from "../context.js";
import { LOG_LEVELS } from "@baton/actions";
import { SETTLED_STATUSES } from "../instance-status.js";
import { resolveInstanceId } from "../last-instance.js";
import { listPages } from "../list-pages.js";
import type { Output } from "../output.js";
import { addListOptions, showList } from "./list-options.js";
import { actorText } from "../actor-text.js";

export function registerLogs(program: Command, makeContext: ContextFactory): void {
  const logs = addListOptions(
    program
      .command("logs")
      .summary("show an instance's log, oldest first; --follow streams it")
      .description(
        "Shows the log of an instance, and of its whole tree when ID is a root (unless --flat). Tables list the newest page oldest first; --json prints the API's page (newest first). " +
          "--follow keeps printing new entries until the instance settles (with --json: one JSON object per line).",
      )
      .argument("<id>", "instance id, or @last")
      .option("--level <level>", `this level and above (${LOG_LEVELS.join(", ")})`)
      .option("--flat", "only the instance's own entries, not its children's")
      .option("-f, --follow", "keep printing new entries until the instance settles"),
  ).action(
    act(makeContext, async (ctx, [idArgument], options) => {
      if (options.level && !(LOG_LEVELS as readonly string[]).includes(options.level)) {
        throw new UsageError(`--level: unknown level "${options.level}"; expected one of ${LOG_LEVELS.join(", ")}`);
      }
      const id = await resolveInstanceId(ctx.io, idArgument);
      const query: ListInstanceLogsQuery = {};
      if (options.level) query.level = options.level as LogLevel;
      if (options.flat) query.flat = true;
      if (options.follow) return followLogs(ctx, id, query);
      await showList(ctx, "listInstanceLogs", { params: { id }, query }, options, "no log entries", (items) => {
        for (const entry of [...items].reverse()) ctx.out.print(formatLogEntry(ctx.out, entry, id));
      });
    }),
  );
  examples(logs, [
    "baton logs @last",
    "baton logs @last --level warn --flat",
    "baton logs @last --follow",
    "baton logs 01939d6e-8a5b-7c1e-9f00-2b6f1c2d3e4f --all --json",
  ]);
}

const FOLLOW_POLL_MS = 500;

async function followLogs(ctx: Context, id: string, query: ListInstanceLogsQuery): Promise<void> {
  const api = await ctx.api();
  const { out } = ctx;
  const seen = new Set<string>();
  let since: number | undefined;
  const emit = (entry: LogEntry) => {
    if (seen.has(entry.id)) return;
    seen.add(entry.id);
    const at = Date.parse(entry.created_at);
    if (!Number.isNaN(at) && (since === undefined || at > since)) since = at;
    out.print(out.json ? stringifyJson(entry) : formatLogEntry(out, entry, id));
  };
  const recent = await api.call("listInstanceLogs", { params: { id }, query });
  for (const entry of [...recent.items].reverse()) emit(entry);
  for (;;) {
    // Status first: entries written before it settled are then all visible to the fetch below.
    const view = await api.call("getInstance", { params: { id } });
    // created_after is inclusive, so entries at the last timestamp come again and are skipped by id.
    const fresh = await listPages(
      api,
      "listInstanceLogs",
      { params: { id }, query: { ...query, order: "asc", ...(since !== undefined ? { created_after: since } : {}) } },
      { all: true },
    );
    for (const entry of fresh.items) emit(entry);
    if (SETTLED_STATUSES.has(view.status)) {
      if (!out.json) ctx.io.stderr.write(`(instance ${view.status})\n`);
      return;
    }
    await ctx.io.sleep(FOLLOW_POLL_MS);
  }
}

const LEVEL_WIDTH = 5;

export function formatLogEntry(out: Output, entry: LogEntry, requestedId: string): string {
  const { style } = out;
  const paintLevel =
    entry.level === "error"
      ? style.red
      : entry.level === "warn"
        ? style.yellow
        : entry.level === "debug"
          ? style.dim
          : (text: string) => text;
  const parts = [style.dim(entry.created_at), paintLevel(entry.level.toUpperCase().padEnd(LEVEL_WIDTH))];
  if (entry.instance_id && entry.instance_id !== requestedId) parts.push(style.cyan(`[${entry.instance_id}]`));
  if (entry.task) parts.push(`${entry.task}:`);
  parts.push(entry.event);
  if (entry.message) parts.push(entry.message);
  if (entry.actor) parts.push(style.dim(`(by ${actorText(entry.actor, entry.actor_label)})`));
  if (entry.data && Object.keys(entry.data).length > 0) parts.push(style.dim(stringifyJson(entry.data)));
  return parts.join(" ");
}
