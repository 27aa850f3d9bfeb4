import type { InstanceStatus, LifecycleResponse } from "@baton/actions";
import {
  cancelTree,
  type LifecycleResult,
  pauseTree,
  requireRoot as requireTreeRoot,
  resumeTree,
  retryTree,
} from "../engine/index.js";
import type { ActionHandler, ActionHandlers, ActionReply } from "../http/action-handler.js";
import type { Services } from "../services.js";
import { instanceIdParam } from "./instances.js";

/** The root a verb acts on: the engine refuses an unknown id or a child's (naming the root). */
export function requireRoot(services: Services, id: string, verb: string): Promise<string> {
  return requireTreeRoot(services.db, instanceIdParam(id), verb, id);
}

/** 204 nothing to do, 202 still draining (a worker's write has to land), 200 done (docs/api.md). */
function reply<N extends Verb>(result: LifecycleResult): ActionReply<N> {
  if (result.outcome === undefined) return { status: 204 };
  const draining = result.outcome === "pausing" || result.outcome === "cancelling";
  const body: LifecycleResponse = {
    outcome: result.outcome,
    status: result.status as InstanceStatus,
    instances: result.instances,
  };
  return { status: draining ? 202 : 200, body } as ActionReply<N>;
}

type Verb = "pauseInstance" | "resumeInstance" | "cancelInstance" | "retryInstance";

function verb<N extends Verb>(
  name: string,
  run: (
    services: Services,
    rootId: string,
    actor: string | null,
    query: { force?: boolean },
  ) => Promise<LifecycleResult>,
  wakes: boolean,
): ActionHandler<N> {
  return async (request, services) => {
    const rootId = await requireRoot(services, request.params.id, name);
    const result = await run(services, rootId, request.principal.actor, request.query);
    if (wakes && result.instances > 0) services.engine.wake();
    return reply(result);
  };
}

/** pauseInstance, resumeInstance, cancelInstance, retryInstance (upgradeInstance stays 501). */
export const lifecycleHandlers = {
  pauseInstance: verb("pause", (s, id, actor) => pauseTree(s.db, s.clock, id, actor), false),
  resumeInstance: verb("resume", (s, id, actor) => resumeTree(s.db, s.clock, id, actor), true),
  cancelInstance: verb("cancel", (s, id, actor) => cancelTree(s.db, s.clock, id, actor), false),
  retryInstance: verb(
    "retry",
    (s, id, actor, query) => retryTree(s.db, s.clock, id, actor, query.force === true),
    true,
  ),
} satisfies ActionHandlers;
