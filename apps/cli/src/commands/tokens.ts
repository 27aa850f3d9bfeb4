import { PERMISSIONS, type Permission } from "@baton/actions";
import type { Command } from "commander";
import { UsageError } from "../cli-error.js";
import { act, collectList, type ContextFactory, examples } from "../command-kit.js";
import { parseDuration } from "../duration.js";

export function registerTokens(program: Command, makeContext: ContextFactory): void {
  const tokens = program
    .command("tokens")
    .summary("list, create and revoke API tokens (admin)")
    .description("Lists API tokens (never their secrets). Needs the admin permission.")
    .action(
      act(makeContext, async (ctx) => {
        const api = await ctx.api();
        const response = await api.call("listTokens", {});
        const { out } = ctx;
        if (out.json) return out.printJson(response);
        if (response.items.length === 0) return out.info("no tokens");
        out.table(
          [
            { header: "ID", keep: true },
            { header: "LABEL" },
            { header: "PERMS" },
            { header: "SCOPES" },
            { header: "CREATED", keep: true, dropOrder: 3 },
            { header: "LAST USED", keep: true, dropOrder: 2 },
            { header: "EXPIRES", keep: true, dropOrder: 1 },
            { header: "REVOKED", keep: true },
          ],
          response.items.map((token) => [
            token.id,
            token.label,
            token.perms && token.perms.length > 0 ? token.perms.join(",") : "(none)",
            token.scopes === null ? "*" : token.scopes.join(",") || "(none)",
            token.created_at,
            token.last_used_at ?? "-",
            token.expires_at ?? "-",
            token.revoked_at ?? "-",
          ]),
        );
      }),
    );
  examples(tokens, ["baton tokens", "baton tokens --json"]);

  const create = tokens
    .command("create")
    .description(
      `Creates an svc_sk_ token and prints its secret on stdout, alone (its id and permissions go to stderr); the secret is shown only this once. Permissions: ${PERMISSIONS.join(", ")}.`,
    )
    .requiredOption("-l, --label <label>", "what the token is for")
    .requiredOption("--perms <perms>", "comma-separated permissions, or none", collectList)
    .option(
      "--scopes <patterns>",
      "comma-separated process-name patterns it reaches (orders-*,billing); default: your own scopes",
      collectList,
    )
    .option("--expires-in <duration>", "expire after this long (30d, 12h)")
    .action(
      act(makeContext, async (ctx, _args, options) => {
        // `none` alone: a token that authenticates and is admitted nowhere (docs/auth.md "Tokens over the API").
        const perms = (options.perms as string[]).join(",") === "none" ? [] : (options.perms as string[]);
        for (const perm of perms) {
          if (!(PERMISSIONS as readonly string[]).includes(perm)) {
            throw new UsageError(`--perms: unknown permission "${perm}"; expected some of ${PERMISSIONS.join(", ")}`);
          }
        }
        const body = {
          label: options.label as string,
          perms: [...new Set(perms)] as Permission[],
          ...(options.scopes ? { scopes: [...new Set(options.scopes as string[])] } : {}),
          ...(options.expiresIn ? { expires_in: parseDuration(options.expiresIn, "--expires-in") } : {}),
        };
        const api = await ctx.api();
        const created = await api.call("createToken", { body });
        const { out } = ctx;
        if (out.json) return out.printJson(created);
        if (out.quiet) return out.print(created.token);
        // stdout is the secret alone, so that SECRET=$(baton tokens create …) captures just it.
        out.hint(
          `created token ${created.id} (${created.label}; ${created.perms?.join(",") || "no permissions"}${created.expires_at ? `; expires ${created.expires_at}` : ""})`,
        );
        out.print(created.token);
        out.hint("store the secret now: it is shown only once");
      }),
    );
  examples(create, [
    "baton tokens create --label ci-deploy --perms deploy,read",
    "baton tokens create --label worker --perms worker --expires-in 30d --quiet",
  ]);

  const revoke = tokens
    .command("revoke")
    .description("Revokes a token; it stops working on its next request.")
    .argument("<id>", "token id")
    .action(
      act(makeContext, async (ctx, [id]) => {
        const api = await ctx.api();
        const response = await api.call("revokeToken", { params: { id } });
        if (ctx.out.json) return ctx.out.printJson(response);
        ctx.out.info(response.revoked ? `revoked ${id}` : `${id} was already revoked`);
      }),
    );
  examples(revoke, ["baton tokens revoke 01939d6e-8a5b-7c1e-9f00-2b6f1c2d3e4f"]);
}
