import { CLAIM_LIMIT, LEASE_MS } from "@baton/actions";
import type { Json } from "@baton/expr";
import {
  claimExternalTasks,
  ExternalTaskError,
  type Outcome,
  releaseExternalTask,
  renewBeforeMs,
  renewExternalTasks,
  resolveExternalTask,
  signalExternalTask,
} from "../engine/external/tasks.js";
import type { ActionHandler, ActionHandlers } from "../http/action-handler.js";
import { ApiError, conflict, invalid, notFound } from "../http/api-error.js";
import { listWaitingTasks } from "../views/waiting-tasks.js";

function asApiError(error: unknown): unknown {
  if (!(error instanceof ExternalTaskError)) return error;
  if (error.kind === "invalid") return invalid(error.message, error.fields);
  if (error.kind === "not_found") return notFound(error.message);
  return conflict(error.message);
}

function mapped(handler: ActionHandler): ActionHandler {
  return async (request, services) => {
    try {
      return await handler(request, services);
    } catch (error) {
      throw error instanceof ApiError ? error : asApiError(error);
    }
  };
}

const intOr = (value: unknown, fallback: number) => (value === undefined || value === null ? fallback : Number(value));

function outcomeOf(body: Record<string, Json>): Outcome {
  const hasResult = Object.hasOwn(body, "result");
  const hasError = Object.hasOwn(body, "error");
  if (hasResult && hasError)
    throw invalid("give either result or error, not both", [
      { path: "error", message: "not allowed together with result" },
    ]);
  return hasError ? { error: body.error } : { result: hasResult ? body.result : null };
}

/** claim, renew, release, resolve, signal (SPEC "External tasks"). */
export const externalTaskHandlers: ActionHandlers = {
  listExternalTasks: async ({ query }, services) => ({
    body: await listWaitingTasks(services.db, services.clock.now(), process.env, query),
  }),
  claimExternalTasks: mapped(async (request, services) => {
    const body = request.body;
    const leaseMs = intOr(body.lease_ms, LEASE_MS.default);
    const items = await claimExternalTasks(services.db, services.clock, {
      workerId: String(body.worker_id),
      limit: intOr(body.limit, CLAIM_LIMIT.default),
      leaseMs,
      process: body.process === undefined ? undefined : String(body.process),
      task: body.task === undefined ? undefined : String(body.task),
      version: body.version === undefined ? undefined : Number(body.version),
    });
    return { body: { items, renew_before_ms: renewBeforeMs(leaseMs) } };
  }),
  renewExternalTasks: mapped(async (request, services) => {
    const body = request.body;
    const leaseMs = intOr(body.lease_ms, LEASE_MS.default);
    const result = await renewExternalTasks(
      services.db,
      services.clock,
      String(body.worker_id),
      (body.tokens as string[]).map(String),
      leaseMs,
    );
    return { body: { ...result, renew_before_ms: renewBeforeMs(leaseMs) } };
  }),
  releaseExternalTask: mapped(async (request, services) => {
    await releaseExternalTask(services.db, services.clock, String(request.body.token));
    return { body: { released: true } };
  }),
  resolveExternalTask: mapped(async (request, services) => {
    await resolveExternalTask(
      services.db,
      services.clock,
      String(request.body.token),
      outcomeOf(request.body),
      request.principal.actor,
    );
    services.engine.wake();
    return { body: { resolved: true } };
  }),
  signalExternalTask: mapped(async (request, services) => {
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
  }),
};
