import { CLAIM_LIMIT, CLAIM_WAIT_MS, CLAIM_MS } from "@baton/actions";
import type { Json } from "@baton/expr";
import {
  claimableTasks,
  claimExternalTasks,
  newClaimToken,
  tokenHash,
  claimWaiting,
  type Outcome,
  releaseExternalTask,
  renewBeforeMs,
  renewExternalTasks,
  resolveExternalTask,
  resolveExternalTasks,
  type SignalGuard,
  signalExternalTask,
} from "../engine/index.js";
import { requireSignalTarget, scopeFilter, tokensOutOfScope } from "../auth/scope.js";
import type { Principal } from "../auth/principal.js";
import type { Services } from "../services.js";
import type { ActionHandler, ActionHandlers } from "../http/action-handler.js";
import { invalid, Refusal } from "../refusal.js";
import { type ListSpec, paginate } from "../views/pagination.js";
import { externalWaits } from "../storage/schema/index.js";
import { type WaitRow, waitingTaskFilters, waitingTaskItems } from "../views/waiting-tasks.js";

const waitingList: ListSpec<WaitRow> = {
  list: "external-tasks",
  sorts: {
    waiting_since: {
      columns: [externalWaits.waitingSince, externalWaits.instanceId],
      values: (r) => [r.waitingSince, r.instanceId],
    },
  },
  defaultSort: "waiting_since",
  defaultOrder: "asc",
};

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

/** The extensions of signal (docs/api.md "Signal only if waiting"): naming a visit means "that visit only", never "buffer". */
function signalGuard(body: { only_if_waiting?: boolean; task_epoch?: number }): SignalGuard {
  if (body.task_epoch !== undefined && body.only_if_waiting === false)
    throw invalid(
      "task_epoch names the visit to answer, so the outcome is never buffered; only_if_waiting: false contradicts it",
      [{ path: "only_if_waiting", message: "must be true or absent when task_epoch is given" }],
    );
  return { onlyIfWaiting: body.only_if_waiting === true, taskEpoch: body.task_epoch };
}

/**
 * `tokens` with each one of a process outside the caller's scopes swapped for a token never
 * issued, so the engine answers it exactly as an unknown token (docs/auth.md "Scopes"), and the
 * way back to the caller's own token for the answer.
 */
async function blinded(services: Services, principal: Principal, tokens: string[]) {
  const out = await tokensOutOfScope(services.db, principal, tokens, tokenHash);
  const back = new Map<string, string>();
  const sent = tokens.map((token) => {
    if (!out.has(token)) return token;
    const stranger = newClaimToken();
    back.set(stranger, token);
    return stranger;
  });
  return { sent, original: (token: string) => back.get(token) ?? token };
}

/** claim, renew, release, resolve, signal (docs/engine.md#external-tasks-and-delay). */
const handlers = {
  claimExternalTasks: async (request, services) => {
    const body = request.body;
    const claimMs = intOr(body.lease_ms, CLAIM_MS.default);
    const filter = {
      limit: intOr(body.limit, CLAIM_LIMIT.default),
      process: body.process === undefined ? undefined : String(body.process),
      task: body.task === undefined ? undefined : String(body.task),
      version: body.version === undefined ? undefined : Number(body.version),
      // docs/auth.md "Scopes": a scoped worker sees only its processes' tasks.
      processes: await scopeFilter(services.db, request.principal),
    };
    const claim = () =>
      claimExternalTasks(services.db, services.clock, { workerId: String(body.worker_id), claimMs, ...filter });
    const waitMs = intOr(body.wait_ms, CLAIM_WAIT_MS.default);
    const items = await claimWaiting(services.db, waitMs, request.abort, claim, filter, () =>
      claimableTasks(services.db, services.clock),
    );
    return { body: { items, renew_before_ms: renewBeforeMs(claimMs) } };
  },
  renewExternalTasks: async (request, services) => {
    const body = request.body;
    const claimMs = intOr(body.lease_ms, CLAIM_MS.default);
    const tokens = await blinded(services, request.principal, (body.tokens as string[]).map(String));
    const result = await renewExternalTasks(services.db, services.clock, String(body.worker_id), tokens.sent, claimMs);
    return {
      body: {
        renewed: result.renewed.map(tokens.original),
        lost: result.lost.map(tokens.original),
        cancelled: result.cancelled.map(tokens.original),
        renew_before_ms: renewBeforeMs(claimMs),
      },
    };
  },
  releaseExternalTask: async (request, services) => {
    const [token] = (await blinded(services, request.principal, [String(request.body.token)])).sent;
    return { body: { released: await releaseExternalTask(services.db, services.clock, token!) } };
  },
  resolveExternalTask: async (request, services) => {
    const [token] = (await blinded(services, request.principal, [String(request.body.token)])).sent;
    await resolveExternalTask(
      services.db,
      services.clock,
      token!,
      outcomeOf(request.body),
      request.principal.actor,
      services.engine,
    );
    return { body: { resolved: true } };
  },
  resolveExternalTaskBatch: async (request, services) => {
    const items = request.body.items as object[];
    const tokens = await blinded(
      services,
      request.principal,
      items.map((item) => String((item as { token: unknown }).token)),
    );
    const answers = await resolveExternalTasks(
      services.db,
      services.clock,
      items.map((item, i) => ({ token: tokens.sent[i]!, outcome: outcomeOf(item) })),
      request.principal.actor,
      services.engine,
    );
    return {
      body: {
        items: answers.map((a) => {
          if (a.resolved) return { token: tokens.original(a.token), resolved: true };
          const { kind, message, fields } = a.refusal;
          return {
            token: tokens.original(a.token),
            resolved: false,
            // A batch item is refused only as a single resolve would be (docs/api.md "Extensions").
            code: kind as "invalid" | "not_found" | "conflict",
            error: message,
            ...(fields?.length ? { fields } : {}),
          };
        }),
      },
    };
  },
  signalExternalTask: async (request, services) => {
    const body = request.body;
    await requireSignalTarget(services.db, request.principal, String(body.instance_id));
    const result = await signalExternalTask(
      services.db,
      services.clock,
      String(body.instance_id),
      String(body.task),
      outcomeOf(body),
      request.principal.actor,
      { ...signalGuard(body), maxBuffered: services.config.limits.bufferedSignals },
    );
    if (result.delivered) services.engine.wake();
    return { body: result };
  },
} satisfies ActionHandlers;

type ExternalCall = keyof typeof handlers;

const CALLS: Record<ExternalCall, string> = {
  claimExternalTasks: "claim",
  renewExternalTasks: "renew",
  releaseExternalTask: "release",
  resolveExternalTask: "resolve",
  resolveExternalTaskBatch: "resolve_batch",
  signalExternalTask: "signal",
};

/** Each call counted by outcome (baton_external_calls_total, docs/metrics.md): ok, empty (a claim that found nothing), or the refusal. */
function counted<N extends ExternalCall>(name: N, handler: ActionHandler<N>): ActionHandler<N> {
  const call = CALLS[name];
  return async (request, services) => {
    try {
      const reply = await handler(request, services);
      const items = (reply.body as { items?: unknown[] } | undefined)?.items;
      services.metrics?.externalCall(call, call === "claim" && items?.length === 0 ? "empty" : "ok");
      return reply;
    } catch (error) {
      services.metrics?.externalCall(call, error instanceof Refusal ? error.kind : "error");
      throw error;
    }
  };
}

export const externalTaskHandlers = {
  claimExternalTasks: counted("claimExternalTasks", handlers.claimExternalTasks),
  renewExternalTasks: counted("renewExternalTasks", handlers.renewExternalTasks),
  releaseExternalTask: counted("releaseExternalTask", handlers.releaseExternalTask),
  resolveExternalTask: counted("resolveExternalTask", handlers.resolveExternalTask),
  resolveExternalTaskBatch: counted("resolveExternalTaskBatch", handlers.resolveExternalTaskBatch),
  signalExternalTask: counted("signalExternalTask", handlers.signalExternalTask),
  // Extension (docs/api.md "Waiting external tasks"): the queue, read-only; not a worker call.
  listExternalTasks: async ({ query, principal }, services) => {
    const now = services.clock.now();
    const processes = await scopeFilter(services.db, principal);
    const page = await paginate(
      services.db,
      externalWaits,
      waitingTaskFilters({ ...query, processes }, now),
      waitingList,
      query,
      services.config.limits.pageCount,
    );
    return { body: { items: await waitingTaskItems(services.db, now, process.env, page.items), page: page.page } };
  },
} satisfies ActionHandlers;
