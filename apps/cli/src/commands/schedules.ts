import type { Schedule, ScheduleFire } from "@baton/actions";
import type { Command } from "commander";
import { UsageError } from "../cli-error.js";
import { act, type ContextFactory, examples } from "../command-kit.js";
import type { Context } from "../context.js";
import { addListOptions, showList } from "./list-options.js";

/** What a schedule starts, as one word: `orders@production`, `orders v3`, `orders (latest)`. */
function targetText(s: Schedule): string {
  if (s.channel) return `${s.process}@${s.channel}`;
  return s.version ? `${s.process} v${s.version}` : `${s.process} (latest)`;
}

function calendarText(s: Schedule): string {
  const parts = [...s.cron];
  if (s.every !== null) parts.push(`every ${s.every}`);
  return `${parts.join(" | ")}${s.time_zone === "UTC" ? "" : ` ${s.time_zone}`}`;
}

function fireLine(f: ScheduleFire): string {
  const instance = f.instance_id ? ` ${f.instance_id}${f.instance_status ? ` (${f.instance_status})` : ""}` : "";
  return `  ${f.fire_time}  ${f.origin.padEnd(9)} ${f.outcome}${instance}${f.reason ? `: ${f.reason}` : ""}`;
}

function printSchedule(ctx: Context, s: Schedule): void {
  const { out } = ctx;
  out.print(`${s.name}: ${targetText(s)}, ${calendarText(s)}${s.paused ? " (paused)" : ""}`);
  out.info(
    `  overlap ${s.overlap}, catch-up window ${s.catchup_window}${s.jitter !== null ? `, jitter ${s.jitter}` : ""}`,
  );
  out.info(`  next: ${s.next_fire_times.length > 0 ? s.next_fire_times.join(", ") : "none"}`);
  if (s.fires && s.fires.length > 0) {
    out.info("last fires:");
    for (const f of s.fires) out.info(fireLine(f));
  }
}

export function registerSchedules(program: Command, makeContext: ContextFactory): void {
  const schedules = addListOptions(
    program
      .command("schedules")
      .summary("list schedules, or show, pause, resume, trigger, backfill and delete one")
      .description(
        "Lists schedules (docs/schedules.md), all of them or those of PROCESS. Create and replace them with `baton deploy` " +
          "(a YAML document with `kind: schedule`); the subcommands operate them.",
      )
      .argument("[process]", "only this process's schedules"),
  ).action(
    act(makeContext, async (ctx, [process], options) => {
      const query = process ? { process } : {};
      await showList(ctx, "listSchedules", { query }, options, "no schedules", (items) =>
        ctx.out.table(
          [
            { header: "NAME" },
            { header: "STARTS" },
            { header: "CALENDAR" },
            { header: "NEXT", keep: true, dropOrder: 2 },
            { header: "STATE", optional: true, dropOrder: 1 },
          ],
          items.map((s) => [
            s.name,
            targetText(s),
            calendarText(s),
            s.next_fire_times[0] ?? "-",
            s.paused ? "paused" : (s.last_instance_status ?? "-"),
          ]),
        ),
      );
    }),
  );
  examples(schedules, ["baton schedules", "baton schedules orders", "baton schedules --all --json"]);

  const show = schedules
    .command("show")
    .description("Shows schedule NAME: what it starts, its next fire times and its last fires with their instances.")
    .argument("<name>", "schedule name")
    .action(
      act(makeContext, async (ctx, [name]) => {
        const s = await (await ctx.api()).call("getSchedule", { params: { name } });
        if (ctx.out.json) return ctx.out.printJson(s);
        printSchedule(ctx, s);
      }),
    );
  examples(show, ["baton schedules show nightly-report"]);

  for (const verb of ["pause", "resume"] as const) {
    schedules
      .command(verb)
      .description(
        verb === "pause"
          ? "Pauses schedule NAME: it fires nothing until resumed."
          : "Resumes schedule NAME; the fires it missed inside its catch-up window run at once.",
      )
      .argument("<name>", "schedule name")
      .action(
        act(makeContext, async (ctx, [name]) => {
          const api = await ctx.api();
          const s = await api.call(verb === "pause" ? "pauseSchedule" : "resumeSchedule", { params: { name } });
          if (ctx.out.json) return ctx.out.printJson(s);
          ctx.out.info(`${s.name}: ${s.paused ? "paused" : `resumed, next ${s.next_fire_times[0] ?? "none"}`}`);
        }),
      );
  }

  const trigger = schedules
    .command("trigger")
    .description("Fires schedule NAME now, once, under its overlap policy; prints the fire.")
    .argument("<name>", "schedule name")
    .action(
      act(makeContext, async (ctx, [name]) => {
        const fire = await (await ctx.api()).call("triggerSchedule", { params: { name } });
        if (ctx.out.json) return ctx.out.printJson(fire);
        ctx.out.print(fireLine(fire).trim());
      }),
    );
  examples(trigger, ["baton schedules trigger nightly-report"]);

  const backfill = schedules
    .command("backfill")
    .description("Fires every calendar time of schedule NAME from FROM to TO (ISO 8601) that has not fired yet.")
    .argument("<name>", "schedule name")
    .requiredOption("--from <time>", "first instant, ISO 8601")
    .requiredOption("--to <time>", "last instant, ISO 8601 (not later than now)")
    .action(
      act(makeContext, async (ctx, [name], options) => {
        for (const key of ["from", "to"] as const)
          if (Number.isNaN(Date.parse(options[key])))
            throw new UsageError(`--${key}: "${options[key]}" is not an ISO 8601 time, e.g. 2026-01-01T00:00:00Z`);
        const api = await ctx.api();
        const { fires } = await api.call("backfillSchedule", {
          params: { name },
          body: { from: new Date(options.from).toISOString(), to: new Date(options.to).toISOString() },
        });
        if (ctx.out.json) return ctx.out.printJson({ fires });
        if (fires.length === 0) ctx.out.info(`${name}: every fire time in the range had fired already`);
        for (const f of fires) ctx.out.print(fireLine(f).trim());
      }),
    );
  examples(backfill, ["baton schedules backfill nightly-report --from 2026-01-01T00:00:00Z --to 2026-01-07T00:00:00Z"]);

  const remove = schedules
    .command("delete")
    .description("Deletes schedule NAME and its fire records; instances it started are untouched.")
    .argument("<name>", "schedule name")
    .action(
      act(makeContext, async (ctx, [name]) => {
        const response = await (await ctx.api()).call("deleteSchedule", { params: { name } });
        if (ctx.out.json) return ctx.out.printJson(response);
        ctx.out.info(response.deleted ? `deleted schedule ${name}` : `no schedule ${name}; nothing deleted`);
      }),
    );
  examples(remove, ["baton schedules delete nightly-report"]);
}
