import { eq } from "drizzle-orm";
import {
  LifecycleConflict,
  type LifecycleResult,
  cancelTree,
  pauseTree,
  resumeTree,
  retryTree,
} from "../engine/trees/lifecycle.js";
import type { ActionHandler, ActionHandlers, ActionReply } from "../http/action-handler.js";
import { conflict, invalid, notFound } from "../http/api-error.js";
import type { Services } from "../services.js";
import { instances } from "../storage/schema/index.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The verbs act on a whole tree through its root: 404 unknown, 400 for a malformed or child id (naming the root). */
export async function requireRoot(services: Services, id: string, verb: string): Promise<string> {
  if (!UUID.test(id))
    throw invalid(`"${id}" is not an instance id (expected a UUID)`, [{ path: "id", message: "expected a UUID" }]);
  const [row] = await services.db
    .select({ id: instances.id, rootId: instances.rootId, parentId: instances.parentId })
    .from(instances)
    .where(eq(instances.id, id.toLowerCase()));
  if (row === undefined) throw notFound(`instance ${id} does not exist`);
  if (row.parentId !== null || row.rootId !== row.id) {
    throw invalid(`instance ${id} is a child; ${verb} acts on a whole tree: use its root id ${row.rootId}`, [
      { path: "id", message: `a child instance; use the root id ${row.rootId}` },
    ]);
  }
  return row.id;
}

function reply(result: LifecycleResult): ActionReply {
  if (result.http === 204) return { status: 204 };
  return { status: result.http, body: { outcome: result.outcome, status: result.status, instances: result.instances } };
}

function verb(
  name: string,
  run: (
    services: Services,
    rootId: string,
    actor: string | null,
    query: Record<string, any>,
  ) => Promise<LifecycleResult>,
  wakes: boolean,
): ActionHandler {
  return async (request, services) => {
    const rootId = await requireRoot(services, request.params.id, name);
    try {
      const result = await run(services, rootId, request.principal.actor, request.query);
      if (wakes && result.instances > 0) services.engine.wake();
      return reply(result);
    } catch (error) {
      if (error instanceof LifecycleConflict) throw conflict(error.message);
      throw error;
    }
  };
}

/** pauseInstance, resumeInstance, cancelInstance, retryInstance (upgradeInstance stays 501). */
export const lifecycleHandlers: ActionHandlers = {
  pauseInstance: verb("pause", (s, id, actor) => pauseTree(s.db, s.clock, id, actor), false),
  resumeInstance: verb("resume", (s, id, actor) => resumeTree(s.db, s.clock, id, actor), true),
  cancelInstance: verb("cancel", (s, id, actor) => cancelTree(s.db, s.clock, id, actor), false),
  retryInstance: verb(
    "retry",
    (s, id, actor, query) => retryTree(s.db, s.clock, id, actor, query.force === true),
    true,
  ),
};
