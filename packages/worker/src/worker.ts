// createWorker: the claim loop, one job per claimed task, graceful stop (docs/worker.md).
import { hostname } from "node:os";
import { CLAIM_MS } from "@baton/actions";
import { type WorkerCalls, workerCalls } from "./calls.js";
import { type Job, raise, runJob, TaskStopped } from "./job.js";
import { startRenewals } from "./renewals.js";
import { backoffMs, isTransient, sleep } from "./retry.js";
import type { AnyTask, ExternalTask, TaskTypes, Worker, WorkerEvent, WorkerOptions } from "./types.js";

const DEFAULTS = {
  concurrency: 1,
  waitMs: 20_000,
  pollMs: 1_000,
  maxPollMs: 10_000,
  callTimeoutMs: 30_000,
  callAttempts: 5,
  shutdownGraceMs: 30_000,
};

function reportToStderr(event: WorkerEvent): void {
  if (event.type === "warning") process.stderr.write(`@baton/worker: warning: ${event.message}\n`);
}

function positive(name: string, value: number | undefined, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1))
    throw new TypeError(
      `createWorker: ${name} must be ${allowZero ? "a non-negative" : "a positive"} integer, got ${value}`,
    );
  return value;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createWorker<T extends TaskTypes = AnyTask>(options: WorkerOptions<T>): Worker {
  if (typeof options.server !== "string" || options.server === "")
    throw new TypeError("createWorker: server is required");
  if (typeof options.handler !== "function") throw new TypeError("createWorker: handler must be a function");
  const concurrency = positive("concurrency", options.concurrency, DEFAULTS.concurrency);
  const waitMs = options.once ? 0 : positive("waitMs", options.waitMs, DEFAULTS.waitMs, true);
  const pollMs = positive("pollMs", options.pollMs, DEFAULTS.pollMs);
  const maxPollMs = Math.max(pollMs, positive("maxPollMs", options.maxPollMs, DEFAULTS.maxPollMs));
  const callAttempts = positive("callAttempts", options.callAttempts, DEFAULTS.callAttempts);
  const graceMs = positive("shutdownGraceMs", options.shutdownGraceMs, DEFAULTS.shutdownGraceMs, true);
  const workerId = options.workerId ?? `${hostname()}:${process.pid}`;
  const observer = options.onEvent ?? reportToStderr;
  // An observer that throws must not take a task's outcome (or the worker) down with it.
  const emit = (event: WorkerEvent) => {
    try {
      observer(event);
    } catch {}
  };
  const filter = { process: options.process, task: options.task, version: options.version };
  const calls: WorkerCalls = workerCalls({
    server: options.server,
    token: options.token,
    fetch: options.fetch,
    userAgent: options.userAgent ?? "@baton/worker",
    workerId,
    leaseMs: options.leaseMs,
    callTimeoutMs: positive("callTimeoutMs", options.callTimeoutMs, DEFAULTS.callTimeoutMs),
    batchResolves: options.batchResolves ?? true,
  });
  const retry = { attempts: callAttempts, baseMs: pollMs, capMs: maxPollMs };

  const jobs = new Map<string, Job>();
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  const renewals = startRenewals({
    calls,
    jobs,
    leaseMs: options.leaseMs ?? CLAIM_MS.default,
    retry,
    warn: (message, error) => emit({ type: "warning", message, error }),
  });

  function start(task: ExternalTask, claimSentAt: number): void {
    emit({ type: "claimed", task });
    const job = runJob(task, {
      calls,
      retry,
      workerId,
      handler: options.handler as never,
      emit,
      onSettled: () => {
        jobs.delete(task.token);
        jobSettled();
      },
    });
    jobs.set(task.token, job);
    renewals.track(task.token, claimSentAt);
  }

  // Wakes the claim loop when a slot frees up.
  let jobSettled = () => {};
  const slotFreed = () =>
    new Promise<void>((resolve) => {
      jobSettled = resolve;
    });

  async function claimLoop(): Promise<void> {
    let emptyClaims = 0;
    let failures = 0;
    for (;;) {
      if (stopping.signal.aborted) return;
      const free = concurrency - jobs.size;
      if (free <= 0) {
        await Promise.race([slotFreed(), sleep(maxPollMs, stopping.signal)]);
        continue;
      }
      const asked = Date.now();
      try {
        const answer = await calls.claim(free, filter, waitMs, stopping.signal);
        failures = 0;
        renewals.setRenewBefore(answer.renewBeforeMs);
        if (stopping.signal.aborted) {
          // Claimed while stopping: give them back at once.
          await Promise.all(answer.items.map((task) => calls.release(task.token).catch(() => {})));
          return;
        }
        for (const task of answer.items) start(task, asked);
        renewals.schedule();
        if (options.once) return;
        if (answer.items.length > 0) {
          emptyClaims = 0;
          continue;
        }
        // A long-poll that really waited needs no pause; a fast empty answer (a poll) backs off.
        if (answer.waited && Date.now() - asked >= waitMs / 2) continue;
        emptyClaims++;
        await sleep(Math.min(maxPollMs, pollMs * 2 ** Math.min(emptyClaims - 1, 10)), stopping.signal);
      } catch (error) {
        if (stopping.signal.aborted) return;
        failures++;
        if (!isTransient(error) || (options.once && failures >= callAttempts)) throw error;
        // Once per streak of failures: a server that is down for an hour is one warning, not 400.
        if (failures === 1) emit({ type: "warning", message: `claiming failed (${describe(error)}); retrying`, error });
        await sleep(backoffMs(failures, pollMs, maxPollMs), stopping.signal);
      }
    }
  }

  /** Waits for handlers up to the grace period, then aborts the rest (they release their tasks). */
  async function drain(): Promise<void> {
    const all = () => Promise.all([...jobs.values()].map((job) => job.done));
    if (jobs.size > 0 && graceMs > 0) await Promise.race([all(), sleep(graceMs)]);
    for (const job of jobs.values()) job.stop("shutdown");
    await all();
  }

  async function run(): Promise<void> {
    const signals = options.stopSignals ?? ["SIGTERM", "SIGINT"];
    const onSignal = () => void worker.stop();
    for (const name of signals) process.on(name, onSignal);
    let failure: unknown;
    try {
      await claimLoop();
      // `once`: what was claimed is handled to the end, without a grace period.
      if (options.once) await Promise.all([...jobs.values()].map((job) => job.done));
    } catch (error) {
      failure = error;
      stopping.abort();
    }
    try {
      await drain();
    } finally {
      renewals.stop();
      for (const name of signals) process.off(name, onSignal);
    }
    if (failure !== undefined) throw failure;
  }

  const worker: Worker = {
    run() {
      running ??= run();
      return running;
    },
    async stop() {
      stopping.abort();
      await running;
    },
    get active() {
      return jobs.size;
    },
  };
  return worker;
}

export { raise, TaskStopped };
