// POST /instances/{id}/reset (extension, docs/safe-change.md "Reset").
import { type ResetResult, resetTree } from "../engine/index.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { flagOf } from "../limits.js";
import { Refusal } from "../refusal.js";
import type { Services } from "../services.js";
import { requireRoot } from "./lifecycle.js";

/** The reset of one root, counted in baton_resets_total; the engine is woken when it runs again. */
export async function resetRoot(
  services: Services,
  rootId: string,
  task: string,
  options: { force: boolean; paused: boolean },
  actor: string | null,
): Promise<ResetResult> {
  try {
    const result = await resetTree(services.db, services.clock, rootId, task, actor, {
      ...options,
      objectThresholdBytes: services.config.objectThresholdBytes,
      visitRecordFlag: flagOf("visitRecordBytes"),
    });
    services.metrics?.reset("reset");
    return result;
  } catch (error) {
    if (error instanceof Refusal) services.metrics?.reset("refused");
    throw error;
  }
}

export const resetHandlers = {
  resetInstance: async ({ params, body, principal }, services) => {
    const rootId = await requireRoot(services, params.id, "reset");
    const result = await resetRoot(
      services,
      rootId,
      body.to_task,
      { force: body.force === true, paused: body.paused === true },
      principal.actor,
    );
    if (result.status === "running") services.engine.wake();
    return { body: result };
  },
} satisfies ActionHandlers;
