import type { Command } from "commander";
import { act, type ContextFactory, examples } from "../command-kit.js";
import { parseDuration } from "../duration.js";

export function registerDebug(program: Command, makeContext: ContextFactory): void {
  const health = program
    .command("health")
    .summary("check the server's probes")
    .description(
      "Checks the server's health probe (/healthz): exit 0 when it can reach its database. With --live, the liveness probe (/livez: the process answers); with --ready, the readiness probe (/readyz: database answers and the replica is not shutting down).",
    )
    .option("--live", "check the liveness probe (/livez) instead")
    .option("--ready", "check the readiness probe (/readyz) instead")
    .action(
      act(makeContext, async (ctx, _args, options: { live?: boolean; ready?: boolean }) => {
        const api = await ctx.api();
        if (options.live) {
          const live = await api.call("liveness", {});
          if (ctx.out.json) return ctx.out.printJson(live);
          return ctx.out.info(`${live.status}: worker ${live.worker_id}, up ${live.uptime_ms} ms`);
        }
        if (options.ready) {
          const ready = await api.call("readiness", {});
          if (ctx.out.json) return ctx.out.printJson(ready);
          return ctx.out.info(`${ready.status}: worker ${ready.worker_id}, database ${ready.database}`);
        }
        const response = await api.call("health", {});
        if (ctx.out.json) return ctx.out.printJson(response);
        ctx.out.info(
          `${response.status}: worker ${response.worker_id}, database ${response.database}, lease age ${response.lease_age_ms} ms${response.manual_tick ? ", manual tick" : ""}`,
        );
      }),
    );
  examples(health, ["baton health", "baton health --ready", "baton health --live --json"]);

  const tick = program
    .command("tick")
    .summary("testing only: run one engine round")
    .description(
      "Testing only (admin): runs one engine claim round, after shifting the server clock by --advance. Prints how many instances advanced.",
    )
    .option("--advance <duration>", "shift the server clock forward first (expires leases and timers)")
    .action(
      act(makeContext, async (ctx, _args, options) => {
        const api = await ctx.api();
        const body = options.advance ? { advance_ms: parseDuration(options.advance, "--advance") } : {};
        const response = await api.call("tick", { body });
        if (ctx.out.json) return ctx.out.printJson(response);
        ctx.out.info(`advanced ${response.count} instance${response.count === 1 ? "" : "s"}`);
      }),
    );
  examples(tick, ["baton tick", "baton tick --advance 30s"]);
}
