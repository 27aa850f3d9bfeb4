import { CLAIM_LIMIT, LEASE_MS } from "@baton/actions";
import type { Json } from "@baton/expr";
import {
  claimExternalTasks,
  type Outcome,
  releaseExternalTask,
  renewBeforeMs,
  renewExternalTasks,
  resolveExternalTask,
  signalExternalTask,
} from "../engine/index.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { invalid } from "../refusal.js";

const intOr = (value: unknown, fallback: number) => (value === undefined || value === null ? fallback : Number(value));

function outcomeOf(request: object): Outcome {
  const body = request as Record<string, Json>;
  const hasResult = Object.hasOwn(body, "result");
  const hasError = Object.hasOwn(body, "error");
  if (hasResult && hasError)
    throw invalid("give either result or error, not both", [
      { path: "error", message: "not allowed together with result" },
    ]);
  return hasError ? { error: body.error } : { result: hasResult ? body.result : null };
}

/** claim, renew, release, resolve, signal (docs/engine.md#external-tasks-and-delay). */
export const externalTaskHandlers = {
  claimExternalTasks: async (request, services) => {
    const body = request.body;
    const claimMs = intOr(body.lease_ms, LEASE_MS.default);
    const items = await claimExternalTasks(services.db, services.clock, {
      workerId: String(body.worker_id),
      limit: intOr(body.limit, CLAIM_LIMIT.default),
      claimMs,
      process: body.process === undefined ? undefined : String(body.process),
      task: body.task === undefined ? undefined : String(body.task),
      version: body.version === undefined ? undefined : Number(body.version),
    });
    return { body: { items, renew_before_ms: renewBeforeMs(claimMs) } };
  },
  renewExternalTasks: async (request, services) => {
    const body = request.body;
    const claimMs = intOr(body.lease_ms, LEASE_MS.default);
    const result = await renewExternalTasks(
      services.db,
      services.clock,
      String(body.worker_id),
      (body.tokens as string[]).map(String),
      claimMs,
    );
    return { body: { ...result, renew_before_ms: renewBeforeMs(claimMs) } };
  },
  releaseExternalTask: async (request, services) => {
    return { body: { released: await releaseExternalTask(services.db, services.clock, String(request.body.token)) } };
  },
  resolveExternalTask: async (request, services) => {
    await resolveExternalTask(
      services.db,
      services.clock,
      String(request.body.token),
      outcomeOf(request.body),
      request.principal.actor,
      services.engine,
    );
    return { body: { resolved: true } };
  },
  signalExternalTask: async (request, services) => {
    const body = request.body;
    const result = await signalExternalTask(
      services.db,
      services.clock,
      String(body.instance_id),
      String(body.task),
      outcomeOf(body),
      request.principal.actor,
    );
    if (result.delivered) services.engine.wake();
    return { body: result };
  },
} satisfies ActionHandlers;
