import type { Command } from "commander";
import { act, type ContextFactory, examples } from "../command-kit.js";
import { parseVersion } from "../process-ref.js";
import { addListOptions, showList } from "./list-options.js";
import { actorText } from "../actor-text.js";

export function registerChannels(program: Command, makeContext: ContextFactory): void {
  const channels = addListOptions(
    program
      .command("channels")
      .summary("list channels, or set, delete and check them")
      .description(
        "Lists channel pointers (process → version), all of them or those of PROCESS. Subcommands change them.",
      )
      .argument("[process]", "only this process's channels"),
  ).action(
    act(makeContext, async (ctx, [process], options) => {
      const query = process ? { name: process } : {};
      const none = process ? `no channels for ${process}` : "no channels";
      await showList(ctx, "listChannels", { query }, options, none, (items) =>
        ctx.out.table(
          [
            { header: "PROCESS" },
            { header: "CHANNEL" },
            { header: "VERSION", align: "right" },
            { header: "UPDATED", keep: true, dropOrder: 2 },
            { header: "ACTOR", optional: true, dropOrder: 1 },
          ],
          items.map((entry) => [
            entry.name,
            entry.channel,
            `v${entry.version}`,
            entry.updated_at ?? "",
            actorText(entry.actor, entry.actor_label),
          ]),
        ),
      );
    }),
  );
  examples(channels, ["baton channels", "baton channels orders", "baton channels --all --json"]);

  const set = channels
    .command("set")
    .description("Points CHANNEL of PROCESS at VERSION (creating the channel if needed).")
    .argument("<process>", "process name")
    .argument("<channel>", "channel name")
    .argument("<version>", "version number")
    .action(
      act(makeContext, async (ctx, [process, channel, versionText]) => {
        const version = parseVersion(versionText, "VERSION");
        const api = await ctx.api();
        const response = await api.call("setChannel", { body: { name: process, channel, version } });
        if (ctx.out.json) return ctx.out.printJson(response);
        ctx.out.info(`${response.name}: ${response.channel} → v${response.version}`);
      }),
    );
  examples(set, ["baton channels set orders production 4"]);

  const remove = channels
    .command("delete")
    .description("Removes CHANNEL from PROCESS. Deleting a channel that does not exist succeeds and says so.")
    .argument("<process>", "process name")
    .argument("<channel>", "channel name")
    .action(
      act(makeContext, async (ctx, [process, channel]) => {
        const api = await ctx.api();
        const response = await api.call("deleteChannel", { body: { name: process, channel } });
        if (ctx.out.json) return ctx.out.printJson(response);
        ctx.out.info(
          response.deleted
            ? `${process}: deleted channel ${channel}`
            : `${process}: had no channel ${channel}; nothing deleted`,
        );
      }),
    );
  examples(remove, ["baton channels delete orders canary"]);

  const status = channels
    .command("status")
    .description(
      "Lists stale child references within CHANNEL: parents on the channel whose pinned child version differs from the child's version on the same channel.",
    )
    .argument("<channel>", "channel name")
    .action(
      act(makeContext, async (ctx, [channel]) => {
        const api = await ctx.api();
        const response = await api.call("channelStatus", { body: { channel } });
        const { out } = ctx;
        if (out.json) return out.printJson(response);
        if (response.items.length === 0) return out.info(`${channel}: no stale child references`);
        out.table(
          [
            { header: "PROCESS" },
            { header: "VERSION", align: "right" },
            { header: "TASK" },
            { header: "CHILD" },
            { header: "PINNED", align: "right" },
            { header: "ON CHANNEL", align: "right" },
          ],
          response.items.map((item) => [
            item.name,
            `v${item.version}`,
            item.task,
            item.child,
            `v${item.pinned_version}`,
            item.channel_version === null || item.channel_version === undefined ? "-" : `v${item.channel_version}`,
          ]),
        );
      }),
    );
  examples(status, ["baton channels status production"]);
}

export function registerPromote(program: Command, makeContext: ContextFactory): void {
  const promote = program
    .command("promote")
    .summary("copy channel pointers from one channel to another")
    .description(
      "Points channel TO at the versions channel FROM points at, for every process on FROM, or with --process for that process and every process it references as a child.",
    )
    .argument("<from>", "source channel")
    .argument("<to>", "target channel")
    .option("-p, --process <process>", "only this process and its child processes")
    .action(
      act(makeContext, async (ctx, [from, to], options) => {
        const api = await ctx.api();
        const response = await api.call("promoteChannel", {
          body: { from, to, ...(options.process ? { process: options.process } : {}) },
        });
        const { out } = ctx;
        if (out.json) return out.printJson(response);
        if (response.promoted.length === 0) return out.info(`nothing to promote from ${from} to ${to}`);
        for (const item of response.promoted) {
          const previous = !item.previous
            ? "new on"
            : item.previous === item.version
              ? "unchanged on"
              : `was v${item.previous} on`;
          out.info(`${item.name} v${item.version} (${previous} ${to})`);
        }
      }),
    );
  examples(promote, ["baton promote staging production", "baton promote staging production --process orders --json"]);
}
