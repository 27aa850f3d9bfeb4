// The renew loop: one timer renews every running claim (docs/worker.md "Renewal").
import type { WorkerCalls } from "./calls.js";
import type { Job } from "./job.js";
import { backoffMs } from "./retry.js";

const RENEW_BATCH = 1000; // the renew body's maxItems

interface RenewalDeps {
  calls: WorkerCalls;
  jobs: Map<string, Job>;
  leaseMs: number;
  retry: { baseMs: number; capMs: number };
  warn: (message: string, error?: unknown) => void;
}

export function startRenewals(deps: RenewalDeps) {
  let renewBeforeMs = Math.floor(deps.leaseMs / 3);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failures = 0;
  // When each claim was last confirmed: the moment its claim or last successful renew was sent.
  const confirmedAt = new Map<string, number>();

  function schedule(delayMs = Math.max(50, Math.floor(renewBeforeMs / 2))): void {
    if (stopped || timer || deps.jobs.size === 0) return;
    timer = setTimeout(renew, delayMs);
  }

  async function renew(): Promise<void> {
    timer = undefined;
    const tokens = [...deps.jobs.keys()];
    for (const token of confirmedAt.keys()) if (!deps.jobs.has(token)) confirmedAt.delete(token);
    if (tokens.length === 0) return;
    const sent = Date.now();
    for (const token of tokens) if (!confirmedAt.has(token)) confirmedAt.set(token, sent);
    let retryIn: number | undefined;
    for (let i = 0; i < tokens.length; i += RENEW_BATCH) {
      const batch = tokens.slice(i, i + RENEW_BATCH);
      try {
        const answer = await deps.calls.renew(batch);
        renewBeforeMs = answer.renewBeforeMs;
        failures = 0;
        const gone = new Set([...answer.lost, ...answer.cancelled]);
        for (const token of batch) if (!gone.has(token)) confirmedAt.set(token, sent);
        for (const token of answer.lost) deps.jobs.get(token)?.stop("lost");
        for (const token of answer.cancelled) deps.jobs.get(token)?.stop("cancelled");
      } catch (error) {
        failures++;
        if (failures === 1)
          deps.warn(`renewing claims failed (${error instanceof Error ? error.message : error}); retrying`, error);
        retryIn = backoffMs(failures, Math.min(deps.retry.baseMs, renewBeforeMs / 4), renewBeforeMs / 2);
      }
    }
    // A claim not confirmed for a whole lease may belong to another worker by now: stop its handler
    // rather than let two workers act on one task (the server would refuse our answer anyway).
    const now = Date.now();
    for (const [token, at] of confirmedAt) if (now - at >= deps.leaseMs) deps.jobs.get(token)?.stop("lost");
    schedule(retryIn);
  }

  return {
    /** A claim taken by a call sent at `sentAt` (Date.now()). */
    track(token: string, sentAt: number) {
      confirmedAt.set(token, sentAt);
    },
    setRenewBefore(ms: number) {
      renewBeforeMs = ms;
    },
    /** Makes sure a renewal is due while claims run (call after claiming). */
    schedule: () => schedule(),
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
