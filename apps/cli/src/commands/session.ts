import type { Command } from "commander";
import { UsageError } from "../cli-error.js";
import { act, type ContextFactory, examples } from "../command-kit.js";
import { removeConfig, writeConfig } from "../config-file.js";
import { normalizeServer } from "../connection.js";

export function registerSession(program: Command, makeContext: ContextFactory): void {
  const login = program
    .command("login")
    .summary("store --server and --token in the config file")
    .description(
      "Stores --server and --token in the config file ($XDG_CONFIG_HOME/baton/config.json, mode 0600), used when neither a flag nor BATON_SERVER/BATON_TOKEN is set. The stored token is only ever sent to the stored server.",
    )
    .action(
      act(makeContext, async (ctx) => {
        if (!ctx.flags.server)
          throw new UsageError("login needs --server URL (and --token T when the server checks tokens)");
        const server = normalizeServer(ctx.flags.server);
        const file = await writeConfig(ctx.io, { server, ...(ctx.flags.token ? { token: ctx.flags.token } : {}) });
        if (ctx.out.json) return ctx.out.printJson({ server, token: Boolean(ctx.flags.token), config: file });
        ctx.out.info(
          `logged in to ${server}${ctx.flags.token ? " with a token" : " without a token"} (saved in ${file})`,
        );
      }),
    );
  examples(login, [
    "baton login --server https://baton.example.com --token svc_sk_…",
    "baton login --server http://127.0.0.1:8449",
  ]);

  const logout = program
    .command("logout")
    .summary("remove the stored server and token")
    .description("Removes the config file written by baton login.")
    .action(
      act(makeContext, async (ctx) => {
        const removed = await removeConfig(ctx.io);
        if (ctx.out.json) return ctx.out.printJson({ removed });
        ctx.out.info(removed ? "logged out" : "not logged in; nothing to remove");
      }),
    );
  examples(logout, ["baton logout"]);
}
