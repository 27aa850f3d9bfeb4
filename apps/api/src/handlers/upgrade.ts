import { upgradeTree } from "../engine/index.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { requireRoot } from "./lifecycle.js";

export const upgradeHandlers = {
  upgradeInstance: async ({ params, body, principal }, services) => {
    const rootId = await requireRoot(services, params.id, "upgrade");
    const { from_version, to_version } = body;
    return {
      body: await upgradeTree(services.db, services.clock, rootId, from_version, to_version, principal.actor, {
        checker: services.checker,
        maxCompatSteps: services.config.limits.compatSteps,
      }),
    };
  },
} satisfies ActionHandlers;
