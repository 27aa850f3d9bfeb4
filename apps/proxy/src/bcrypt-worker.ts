import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * bcrypt on a worker thread, one comparison at a time. bcryptjs is plain JavaScript: on the
 * event loop, a flood of sign-in attempts took the CPU the proxy needs for everyone else's
 * requests (`/auth/session` slowed to 4 s). On its own thread the work still queues, but other
 * requests are served meanwhile, and the queue is bounded: beyond `maxQueued` waiting
 * comparisons `compare` rejects with BcryptBusy (the caller answers 503) instead of growing.
 */
export interface BcryptWorker {
  compare(password: string, hash: string): Promise<boolean>;
  hash(password: string, cost: number): Promise<string>;
  /** Comparisons and hashes waiting or running. */
  pending(): number;
  close(): Promise<void>;
}

export class BcryptBusy extends Error {
  constructor(maxQueued: number) {
    super(`more than ${maxQueued} password checks are waiting`);
    this.name = "BcryptBusy";
  }
}

// The worker's code is a string (eval) so it runs the same from src/ under vitest and from dist/.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const bcrypt = require(process.env.__BATON_BCRYPTJS__ || ${JSON.stringify("bcryptjs")});
parentPort.on("message", (m) => {
  try {
    const result = m.op === "compare" ? bcrypt.compareSync(m.password, m.hash) : bcrypt.hashSync(m.password, m.cost);
    parentPort.postMessage({ id: m.id, result });
  } catch (error) {
    parentPort.postMessage({ id: m.id, error: String(error && error.message || error) });
  }
});
`;

export function createBcryptWorker(maxQueued = 64): BcryptWorker {
  const bcryptPath = createRequire(import.meta.url).resolve("bcryptjs");
  let worker: Worker | undefined;
  let nextId = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  const start = (): Worker => {
    const w = new Worker(WORKER_SOURCE, { eval: true, env: { __BATON_BCRYPTJS__: bcryptPath } });
    w.unref();
    w.on("message", (m: { id: number; result?: unknown; error?: string }) => {
      const call = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.error !== undefined) call?.reject(new Error(m.error));
      else call?.resolve(m.result);
    });
    // A dead worker fails what it held; the next call starts a new one.
    const fail = (error: Error) => {
      worker = undefined;
      for (const call of waiting.values()) call.reject(error);
      waiting.clear();
    };
    w.on("error", fail);
    w.on("exit", (code) => fail(new Error(`the bcrypt worker exited with code ${code}`)));
    return w;
  };

  const run = (message: Record<string, unknown>): Promise<unknown> => {
    if (waiting.size >= maxQueued) return Promise.reject(new BcryptBusy(maxQueued));
    worker ??= start();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker!.postMessage({ ...message, id });
    });
  };

  return {
    compare: (password, hash) => run({ op: "compare", password, hash }) as Promise<boolean>,
    hash: (password, cost) => run({ op: "hash", password, cost }) as Promise<string>,
    pending: () => waiting.size,
    close: async () => {
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}
