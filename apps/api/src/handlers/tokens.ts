import { scopesWithin } from "../auth/scope.js";
import { checkTokenRequest } from "../auth/token-request.js";
import { issueToken, listTokenRows, revokeToken, tokenScopes, tokenView } from "../auth/token-store.js";
import { ApiError } from "../http/api-error.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { invalid, notFound } from "../refusal.js";
import { actorLabels } from "../views/actor-labels.js";

/** createToken, listTokens, revokeToken (docs/auth.md "Tokens over the API"; all admin), and whoami. */
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
    const { actor, scopes: own } = request.principal;
    // docs/auth.md "Scopes": a scoped admin mints only within its own scopes; omitted scopes are the creator's.
    const scopes = check.value.scopes === undefined ? own : check.value.scopes;
    if (!scopesWithin(scopes, own)) {
      throw new ApiError(
        "forbidden",
        scopes === null
          ? "this credential has scopes, so it may not mint a token without scopes (every process); give scopes within its own (GET /whoami lists them)"
          : "body.scopes reaches processes outside this credential's own scopes; a scoped admin mints only tokens within them (GET /whoami lists them)",
      );
    }
    const issued = await issueToken(
      services.db,
      { ...check.value, scopes: scopes === null ? null : [...scopes] },
      { now, actor },
    );
    // The secret is in the response only; the log gets the id.
    services.log.info("token created", {
      token_id: issued.id,
      label: issued.label,
      perms: issued.perms,
      scopes: issued.scopes,
      expires_at: issued.expires_at,
      actor,
    });
    return { body: issued };
  },

  listTokens: async (request, services) => {
    const own = request.principal.scopes;
    const rows = (await listTokenRows(services.db)).filter((row) => scopesWithin(tokenScopes(row), own));
    return { body: { items: rows.map(tokenView) } };
  },

  revokeToken: async (request, services) => {
    const id = request.params.id!;
    const { actor, scopes: own } = request.principal;
    const missing = () => notFound(`no token with id "${id}"; GET /tokens lists the ids`);
    if (own !== null) {
      // A token beyond the caller's scopes is one it cannot see: the same 404 as an unknown id.
      const row = (await listTokenRows(services.db)).find((r) => r.id === id);
      if (row === undefined || !scopesWithin(tokenScopes(row), own)) throw missing();
    }
    const outcome = await revokeToken(services.db, id, { now: services.clock.now(), actor });
    if (outcome === "unknown") throw missing();
    if (outcome === "revoked") services.log.info("token revoked", { token_id: id, actor });
    return { body: { revoked: outcome === "revoked" } };
  },

  whoami: async ({ principal }, services) => {
    const label = await actorLabels(services.db, [principal.actor]);
    return {
      body: {
        actor: principal.actor,
        actor_label: label(principal.actor),
        perms: [...principal.perms] as never,
        scopes: principal.scopes === null ? null : [...principal.scopes],
        auth: services.config.auth,
      },
    };
  },
} satisfies ActionHandlers;
