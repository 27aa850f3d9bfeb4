import { checkTokenRequest } from "../auth/token-request.js";
import { issueToken, listTokenRows, revokeToken, tokenView } from "../auth/token-store.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { invalid, notFound } from "../refusal.js";

/** createToken, listTokens, revokeToken (docs/auth.md "Tokens over the API"; all admin). */
export const tokenHandlers = {
  createToken: async (request, services) => {
    const now = services.clock.now();
    const check = checkTokenRequest(request.body, now);
    if (!check.ok) {
      const first = check.problems[0]!;
      throw invalid(
        `the token request is not valid: ${first.path ? `${first.path}: ` : ""}${first.message}`,
        check.problems,
      );
    }
    const actor = request.principal.actor;
    const issued = await issueToken(services.db, check.value, { now, actor });
    // The secret is in the response only; the log gets the id.
    services.log.info("token created", {
      token_id: issued.id,
      label: issued.label,
      perms: issued.perms,
      expires_at: issued.expires_at,
      actor,
    });
    return { body: issued };
  },

  listTokens: async (_request, services) => {
    const rows = await listTokenRows(services.db);
    return { body: { items: rows.map(tokenView) } };
  },

  revokeToken: async (request, services) => {
    const id = request.params.id!;
    const actor = request.principal.actor;
    const outcome = await revokeToken(services.db, id, { now: services.clock.now(), actor });
    if (outcome === "unknown") throw notFound(`no token with id "${id}"; GET /tokens lists the ids`);
    if (outcome === "revoked") services.log.info("token revoked", { token_id: id, actor });
    return { body: { revoked: outcome === "revoked" } };
  },
} satisfies ActionHandlers;
