// The four external-task calls a worker makes, over the typed client of @baton/actions, with
// per-call timeouts and the long-poll fallback (docs/worker.md "Claiming").
import { ApiError, type BatonClient, createClient } from "@baton/actions";
import type { ExternalTask } from "./types.js";

export interface CallSettings {
  server: string;
  token?: string;
  fetch?: typeof fetch;
  userAgent?: string;
  workerId: string;
  leaseMs?: number;
  callTimeoutMs: number;
}

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
            // `wait_ms` is not in the registry's claim body yet; servers that know it long-poll.
            body: { ...body, wait_ms: waitMs } as unknown as typeof body,
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

    async resolve(
      token: string,
      outcome: { result: unknown } | { error: { code: string; message?: string; data?: unknown } },
    ) {
      await client.call("resolveExternalTask", { body: { token, ...outcome } as never, signal: timeout() });
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
