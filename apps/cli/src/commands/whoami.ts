import type { Command } from "commander";
import { act, type ContextFactory, examples } from "../command-kit.js";

/** `baton whoami`: the credential in use, its permissions and scopes (docs/auth.md "Who am I"). */
export function registerWhoami(program: Command, makeContext: ContextFactory): void {
  const whoami = program
    .command("whoami")
    .summary("who the credential in use is: its permissions and scopes")
    .description(
      'Shows who the API sees (a token\'s id and label, or a person), the permissions the credential holds and the process-name patterns it reaches (docs/auth.md "Scopes").',
    )
    .action(
      act(makeContext, async (ctx) => {
        const api = await ctx.api();
        const me = await api.call("whoami", {});
        const { out } = ctx;
        if (out.json) return out.printJson(me);
        const who = me.actor === null ? "nobody (the server runs --auth none)" : `${me.actor_label} (${me.actor})`;
        out.print(`actor:  ${who}`);
        out.print(`perms:  ${me.perms.length > 0 ? me.perms.join(",") : "(none)"}`);
        out.print(`scopes: ${me.scopes === null ? "* (every process)" : me.scopes.join(",") || "(none: no process)"}`);
      }),
    );
  examples(whoami, ["baton whoami", "baton whoami --json"]);
}
