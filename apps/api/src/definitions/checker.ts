// The checker threads (docs/limits.md#the-checker-thread). Checking a definition is CPU work
// that grows with its size (about 1.7 s of CPU for the largest one allowed); run on the event
// loop it would stall every other request, /healthz included, for that long. So every check
// (check-jobs.ts) runs on a worker thread: at most `threads` checks at once, at most `queue`
// more waiting for a thread, and past that the request is refused at once with 503
// `unavailable` (a client retries; a check is never dropped once accepted). Checks that store
// or move something (register, batch, upgrade: `deploy`) and checks that only answer
// (validate, compat, a process's OpenAPI: `read`) run in two lanes with their own threads and
// queues, so reads however many never make a write wait or refuse it (docs/limits.md
// "Two lanes").
import { Worker } from "node:worker_threads";
import { unavailable } from "../refusal.js";
import type { CheckJob, CheckReply } from "./check-jobs.js";

export interface CheckerOptions {
  /** Checks running at once, one thread each (--limit-checker-threads). */
  threads: number;
  /** Checks waiting for a thread (--limit-checker-queue); one more is refused with 503. */
  queue: number;
}

/** The lane of a check: `write` for checks of a request that stores or moves something, `read` for the rest. */
export type CheckLane = "read" | "write";

export function laneOf(job: CheckJob): CheckLane {
  if (job.kind === "upgrade") return "write";
  if (job.kind === "request" && (job.action === "putDefinition" || job.action === "putDefinitionBatch")) return "write";
  return "read";
}

export interface Checker {
  /** Runs `job` on a checker thread; rejects with a Refusal (503) when the queue is full. */
  run<J extends CheckJob>(job: J): Promise<CheckReply<J>>;
  /** Ends every thread; jobs still waiting or running are rejected. */
  close(): Promise<void>;
}

interface Pending {
  job: CheckJob;
  resolve: (reply: never) => void;
  reject: (error: Error) => void;
}

type WorkerMessage = { ok: true; reply: unknown } | { ok: false; error: string };

// The build of checker-worker.ts. Running from source (vitest imports src/*.ts), a worker
// thread cannot load TypeScript, so it loads the build instead (tests run after a build).
const WORKER_SCRIPT = import.meta.url.endsWith(".ts")
  ? new URL("../../dist/definitions/checker-worker.js", import.meta.url)
  : new URL("./checker-worker.js", import.meta.url);

/** One pool per lane, each of `options.threads` threads and a queue of `options.queue`. */
export function createChecker(options: CheckerOptions): Checker {
  const lanes: Record<CheckLane, Checker> = { read: createPool(options, "read"), write: createPool(options, "write") };
  return {
    run: (job) => lanes[laneOf(job)].run(job),
    close: async () => {
      await Promise.all([lanes.read.close(), lanes.write.close()]);
    },
  };
}

/** Threads start on the first check that needs one and stay until close. */
function createPool(options: CheckerOptions, lane: CheckLane): Checker {
  const waiting: Pending[] = [];
  const idle: Worker[] = [];
  const running = new Map<Worker, Pending>();
  let closed = false;

  function startWorker(): Worker {
    const worker = new Worker(WORKER_SCRIPT);
    // An idle checker thread must not keep the process alive; the HTTP server does.
    worker.unref();
    worker.on("message", (message: WorkerMessage) => {
      const pending = running.get(worker);
      running.delete(worker);
      if (pending) {
        if (message.ok) pending.resolve(message.reply as never);
        else pending.reject(new Error(`the definition checker failed: ${message.error}`));
      }
      idle.push(worker);
      dispatch();
    });
    // An uncaught error or an exit (out of memory, a bug) loses this thread only: its job fails
    // (500), and the next job starts a fresh thread.
    const lost = (error: Error) => {
      const pending = running.get(worker);
      running.delete(worker);
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      pending?.reject(error);
      if (!closed) dispatch();
    };
    worker.on("error", lost);
    worker.on("exit", (code) => lost(new Error(`the definition checker thread exited (code ${code})`)));
    return worker;
  }

  function dispatch(): void {
    while (waiting.length > 0 && !closed) {
      const worker = idle.pop() ?? (running.size < options.threads ? startWorker() : undefined);
      if (!worker) return;
      const pending = waiting.shift()!;
      running.set(worker, pending);
      worker.postMessage(pending.job);
    }
  }

  return {
    run(job) {
      if (closed) return Promise.reject(unavailable("the server is shutting down; retry on another replica"));
      // A free thread takes a job at once (dispatch), so jobs only wait while every thread runs.
      if (running.size >= options.threads && waiting.length >= options.queue)
        return Promise.reject(
          unavailable(
            `the definition checker is busy: ${running.size} ${lane} checks are running and ${waiting.length} are waiting, ` +
              `the most allowed (--limit-checker-threads ${options.threads}, --limit-checker-queue ${options.queue}); retry shortly`,
          ),
        );
      return new Promise((resolve, reject) => {
        waiting.push({ job, resolve, reject });
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const pending of waiting.splice(0)) pending.reject(unavailable("the server is shutting down"));
      await Promise.all([...idle.splice(0), ...running.keys()].map((w) => w.terminate()));
    },
  };
}
