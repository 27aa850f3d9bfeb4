// The four external-task calls a worker makes, over the typed client of @baton/actions, with
// per-call timeouts, the long-poll fallback (docs/worker.md "Claiming") and batched resolves
// (docs/worker.md "Batched resolves").
import { API_CODE_STATUS, ApiError, type BatonClient, createClient, RESOLVE_BATCH_ITEMS } from "@baton/actions";
import type { ExternalTask } from "./types.js";

export interface CallSettings {
  server: string;
  token?: string;
  fetch?: typeof fetch;
  userAgent?: string;
  workerId: string;
  leaseMs?: number;
  callTimeoutMs: number;
  /** Send resolves that are ready together in one resolve-batch call (default true). */
  batchResolves?: boolean;
}

type ResolveOutcome = { result: unknown } | { error: { code: string; message?: string; data?: unknown } };

export interface ClaimFilter {
  process?: string;
  task?: string;
  version?: number;
}

export interface RenewAnswer {
  lost: string[];
  cancelled: string[];
  renewBeforeMs: number;
}

/** The claim body refused `wait_ms` (a server without long-poll): the field is named in `fields` or the message. */
function refusesWaitMs(error: unknown): boolean {
  if (!(error instanceof ApiError) || error.status !== 400) return false;
  return (error.fields ?? []).some((field) => field.path.includes("wait_ms")) || error.message.includes("wait_ms");
}

export function workerCalls(settings: CallSettings) {
  const client: BatonClient = createClient({
    server: settings.server,
    token: settings.token,
    fetch: settings.fetch,
    userAgent: settings.userAgent,
  });
  const lease = settings.leaseMs === undefined ? {} : { lease_ms: settings.leaseMs };
  const timeout = (extraMs = 0, signal?: AbortSignal) => {
    const timer = AbortSignal.timeout(settings.callTimeoutMs + extraMs);
    return signal ? AbortSignal.any([timer, signal]) : timer;
  };
  // Unknown until the first long-poll claim answers: true when the server took `wait_ms`.
  let longPoll: boolean | undefined;
  // Unknown until the first resolve-batch answers: false when the server has no such endpoint.
  let batching: boolean | undefined;
  const queued: Array<{ token: string; outcome: ResolveOutcome; settle: () => void; fail: (e: unknown) => void }> = [];
  let flushing = false;

  async function resolveOne(token: string, outcome: ResolveOutcome): Promise<void> {
    await client.call("resolveExternalTask", { body: { token, ...outcome } as never, signal: timeout() });
  }

  /** Sends what is queued, one batch call at a time, until the queue is empty. */
  async function flush(): Promise<void> {
    flushing = true;
    try {
      while (queued.length > 0) {
        const batch = queued.splice(0, RESOLVE_BATCH_ITEMS.max);
        if (batching === false || batch.length === 1) {
          // Alone, the plain resolve is the same call; a server without resolve-batch gets only these.
          await Promise.all(batch.map((item) => resolveOne(item.token, item.outcome).then(item.settle, item.fail)));
          continue;
        }
        try {
          const answer = await client.call("resolveExternalTaskBatch", {
            body: { items: batch.map((item) => ({ token: item.token, ...item.outcome }) as never) },
            signal: timeout(),
          });
          batching = true;
          batch.forEach((item, i) => {
            const got = answer.items[i];
            if (got?.resolved === true) item.settle();
            else if (got === undefined) item.fail(new Error("resolve-batch answered fewer items than it was sent"));
            else {
              const code = got.code ?? "conflict";
              item.fail(new ApiError(API_CODE_STATUS[code], code, got.error ?? "refused", got.fields, got));
            }
          });
        } catch (error) {
          if (batching === undefined && error instanceof ApiError && (error.status === 404 || error.status === 405)) {
            // A server without the extension: resolve one by one from now on.
            batching = false;
            queued.unshift(...batch);
            continue;
          }
          // The whole call failed: each item fails with it and its job retries it (a landed one then answers 409).
          for (const item of batch) item.fail(error);
        }
      }
    } finally {
      flushing = false;
    }
  }

  return {
    /** Whether claims long-poll (after the first claim that asked for it). */
    get longPolls(): boolean {
      return longPoll === true;
    },

    async claim(
      limit: number,
      filter: ClaimFilter,
      waitMs: number,
      signal?: AbortSignal,
    ): Promise<{ items: ExternalTask[]; renewBeforeMs: number; waited: boolean }> {
      const body = { worker_id: settings.workerId, limit, ...lease, ...filter };
      const wait = waitMs > 0 && longPoll !== false;
      if (wait) {
        try {
          const answer = await client.call("claimExternalTasks", {
            body: { ...body, wait_ms: waitMs },
            signal: timeout(waitMs, signal),
          });
          longPoll = true;
          return { items: answer.items as ExternalTask[], renewBeforeMs: answer.renew_before_ms, waited: true };
        } catch (error) {
          if (!refusesWaitMs(error)) throw error;
          longPoll = false;
        }
      }
      const answer = await client.call("claimExternalTasks", { body, signal: timeout(0, signal) });
      return { items: answer.items as ExternalTask[], renewBeforeMs: answer.renew_before_ms, waited: false };
    },

    async renew(tokens: string[]): Promise<RenewAnswer> {
      const answer = await client.call("renewExternalTasks", {
        body: { worker_id: settings.workerId, tokens, ...lease },
        signal: timeout(),
      });
      return { lost: answer.lost, cancelled: answer.cancelled, renewBeforeMs: answer.renew_before_ms };
    },

    /**
     * Resolves one claim. With batching on, resolves asked for while a batch call is in flight
     * wait for it and then go together in the next one (as a group commit): no timer, and a
     * lone resolve leaves at once. Each settles with its own item's answer, thrown as the
     * ApiError a single resolve would have thrown, so retries and 409 handling stay per task.
     */
    resolve(token: string, outcome: ResolveOutcome): Promise<void> {
      if (batching === false || settings.batchResolves === false) return resolveOne(token, outcome);
      return new Promise<void>((settle, fail) => {
        queued.push({ token, outcome, settle, fail });
        if (!flushing) void flush();
      });
    },

    /** Ends the claim; a claim that is no longer held (409) needs no release. */
    async release(token: string): Promise<void> {
      try {
        await client.call("releaseExternalTask", { body: { token }, signal: timeout() });
      } catch (error) {
        if (error instanceof ApiError && error.status === 409) return;
        throw error;
      }
    },
  };
}

export type WorkerCalls = ReturnType<typeof workerCalls>;
