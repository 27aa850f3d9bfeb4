import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type BatonClient, createClient } from "@baton/actions";
import { startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorker, type TaskStopped, type WorkerEvent } from "../src/index.js";

// The SDK against the real, built server (PGlite, or PostgreSQL with DATABASE_URL). Each test
// deploys its own process so that workers filtering by process never see another test's tasks.
let server: TestServer;
let api: BatonClient;

beforeAll(async () => {
  server = await startServer();
  api = createClient({ server: server.url });
});

afterAll(async () => {
  await server?.stop();
});

const APPROVAL = (name: string) => ({
  name,
  input_schema: { type: "object", properties: { amount: { type: "integer" } }, required: ["amount"] },
  tasks: [
    {
      id: "approve",
      action: { type: "external", input: { amount: "$: input.amount" }, result_schema: { type: "object" } },
      raises: { rejected: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] } },
    },
  ],
});

async function deployAndStart(name: string, amount = 5): Promise<string> {
  await api.call("putDefinition", { body: APPROVAL(name) as never });
  const started = await api.call("startInstance", { body: { process: name, input: { amount } } });
  // Parked: the external task waits to be claimed (a `once` worker claims a single time).
  while (((await api.call("getInstanceDetail", { params: { id: started.id } })) as any).phase !== "external")
    await new Promise((resolve) => setTimeout(resolve, 50));
  return started.id;
}

async function settled(id: string): Promise<Record<string, any>> {
  for (;;) {
    const instance = (await api.call("getInstance", { params: { id } })) as Record<string, any>;
    if (!["running", "pausing", "cancelling"].includes(instance.status)) return instance;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A fetch that counts calls per endpoint and can hold them until `open()`. */
function observedFetch() {
  const counts = new Map<string, number>();
  let gate: Promise<void> = Promise.resolve();
  let open = () => {};
  const waiters: { path: string; n: number; resolve: () => void }[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const path = new URL(String(input)).pathname.replace("/api/external-tasks/", "");
    await gate;
    const response = await fetch(input, init);
    counts.set(path, (counts.get(path) ?? 0) + 1);
    for (const waiter of waiters) if (waiter.path === path && counts.get(path)! >= waiter.n) waiter.resolve();
    return response;
  };
  return {
    fetch: fetchImpl,
    count: (path: string) => counts.get(path) ?? 0,
    /** Resolves once `path` was answered `n` times. */
    reached: (path: string, n: number) =>
      new Promise<void>((resolve) => {
        if ((counts.get(path) ?? 0) >= n) resolve();
        else waiters.push({ path, n, resolve });
      }),
    hold() {
      gate = new Promise((resolve) => (open = resolve));
    },
    open: () => open(),
  };
}

describe("createWorker against a real server", () => {
  it("keeps a handler's claim alive across several renewals and resolves with its result", async () => {
    const id = await deployAndStart("sdk_long");
    const observed = observedFetch();
    const events: WorkerEvent[] = [];
    const worker = createWorker<{ input: { amount: number }; result: { approved: boolean }; raises: {} }>({
      server: server.url,
      process: "sdk_long",
      leaseMs: 1000,
      once: true,
      fetch: observed.fetch,
      onEvent: (event) => events.push(event),
      handler: async (task, { signal }) => {
        await observed.reached("renew", 4);
        expect(signal.aborted).toBe(false);
        return { approved: task.external_input.amount < 10 };
      },
    });
    await worker.run();
    expect(events.map((event) => event.type)).toEqual(["claimed", "resolved"]);
    expect(observed.count("release")).toBe(0);
    expect(await settled(id)).toMatchObject({ status: "completed" });
    const detail = (await api.call("getInstanceDetail", { params: { id } })) as Record<string, any>;
    expect(JSON.stringify(detail)).toContain('"approved":true');
  });

  it("resolves a raised outcome through the task's raises", async () => {
    const id = await deployAndStart("sdk_raise");
    const events: WorkerEvent[] = [];
    await createWorker<{ input: unknown; result: unknown; raises: { rejected: { reason: string } } }>({
      server: server.url,
      process: "sdk_raise",
      once: true,
      onEvent: (event) => events.push(event),
      handler: (_task, { raise }) => raise("rejected", { message: "too much", data: { reason: "budget" } }),
    }).run();
    expect(events.at(-1)).toMatchObject({ type: "raised", code: "rejected" });
    // No on_error rule handles it, so the instance fails with that code.
    expect(await settled(id)).toMatchObject({ status: "failed", error_code: "rejected" });
  });

  it("aborts the handler with `cancelled` when the instance is cancelled mid-handler, and releases the task", async () => {
    const id = await deployAndStart("sdk_cancel");
    const observed = observedFetch();
    const events: WorkerEvent[] = [];
    let reason: unknown;
    await createWorker({
      server: server.url,
      process: "sdk_cancel",
      leaseMs: 1000,
      once: true,
      fetch: observed.fetch,
      onEvent: (event) => events.push(event),
      handler: async (_task, { signal }) => {
        await api.call("cancelInstance", { params: { id } });
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
        reason = signal.reason;
        throw signal.reason;
      },
    }).run();
    expect((reason as TaskStopped).reason).toBe("cancelled");
    expect(events.map((event) => event.type)).toEqual(["claimed", "cancelled"]);
    expect(observed.count("release")).toBe(1);
    expect(observed.count("resolve")).toBe(0);
    expect(await settled(id)).toMatchObject({ status: "cancelled" });
  });

  it("aborts the handler with `lost`, without resolving or releasing, when another worker took the lapsed claim", async () => {
    const id = await deployAndStart("sdk_lost");
    const observed = observedFetch();
    const events: WorkerEvent[] = [];
    let reason: unknown;
    let started!: () => void;
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    const run = createWorker({
      server: server.url,
      process: "sdk_lost",
      leaseMs: 1000,
      once: true,
      fetch: observed.fetch,
      onEvent: (event) => events.push(event),
      handler: async (_task, { signal }) => {
        started();
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
        reason = signal.reason;
        return { too: "late" };
      },
    }).run();
    await handlerStarted;
    // A network partition: the worker's calls hang while its lease lapses and a thief claims.
    observed.hold();
    let stolen: any[] = [];
    while (stolen.length === 0) {
      stolen = (await api.call("claimExternalTasks", { body: { worker_id: "thief", process: "sdk_lost" } })).items;
      if (stolen.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    observed.open();
    await run;
    expect((reason as TaskStopped).reason).toBe("lost");
    expect(events.map((event) => event.type)).toEqual(["claimed", "lost"]);
    expect(observed.count("resolve"), "a lost claim is someone else's").toBe(0);
    expect(observed.count("release")).toBe(0);
    await api.call("resolveExternalTask", { body: { token: stolen[0].token, result: { by: "thief" } } });
    expect(await settled(id)).toMatchObject({ status: "completed" });
  });
});

const CHILD = fileURLToPath(new URL("./support/child-worker.mjs", import.meta.url));

/** A worker process; `next(type)` waits for its next event line of that type. */
function childWorker(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [CHILD], {
    env: { ...process.env, BATON_SERVER: server.url, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const seen: any[] = [];
  const waiters: { type: string; resolve: (event: any) => void }[] = [];
  lines.on("line", (line) => {
    const event = JSON.parse(line);
    seen.push(event);
    for (const waiter of waiters.filter((w) => w.type === event.type)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(event);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    seen,
    exited,
    next: (type: string) =>
      new Promise<any>((resolve) => {
        const earlier = seen.find((event) => event.type === type);
        if (earlier) resolve(earlier);
        else waiters.push({ type, resolve });
      }),
  };
}

/** Deploys `name` and starts `amounts.length` instances, each parked on its external task. */
async function startMany(name: string, amounts: number[]): Promise<string[]> {
  await api.call("putDefinition", { body: APPROVAL(name) as never });
  const ids: string[] = [];
  for (const amount of amounts)
    ids.push((await api.call("startInstance", { body: { process: name, input: { amount } } })).id);
  for (const id of ids)
    while (((await api.call("getInstanceDetail", { params: { id } })) as any).phase !== "external")
      await new Promise((resolve) => setTimeout(resolve, 50));
  return ids;
}

/** Every microtask queued so far has run (a macrotask boundary; no clock involved). */
const drained = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Orders a batching run without a clock: the first handler returns at once; the first single
 * resolve is held until the `others` other handlers (which wait for it to be sent) have
 * returned and queued their answers. `answer(path)` may answer a call itself (a stand-in).
 */
function firstResolveHeld(others: number, answer: (path: string) => Response | undefined = () => undefined) {
  let openOthers!: () => void;
  const othersMayReturn = new Promise<void>((resolve) => (openOthers = resolve));
  let returned = 0;
  let first = true;
  const counts = new Map<string, number>();
  const fetchImpl: typeof fetch = async (input, init) => {
    const path = new URL(String(input)).pathname.replace("/api/external-tasks/", "");
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const own = answer(path);
    if (own !== undefined) return own;
    if (path === "resolve" && counts.get(path) === 1) {
      openOthers();
      while (returned < others) await drained();
      await drained();
    }
    return fetch(input, init);
  };
  /** Wraps a handler: the first call returns at once, the others after the first resolve left. */
  const handler =
    <R>(answerOf: (task: { external_input: unknown }) => R) =>
    async (task: { external_input: unknown }) => {
      if (first) {
        first = false;
        return answerOf(task);
      }
      await othersMayReturn;
      returned++;
      return answerOf(task);
    };
  return { fetch: fetchImpl, handler, count: (path: string) => counts.get(path) };
}

describe('batched resolves (docs/worker.md "Batched resolves")', () => {
  it("answers ready while a resolve is in flight leave together in one resolve-batch, each with its own outcome", async () => {
    const ids = await startMany("sdk_batch", [1, 2, 3, 4]);
    const held = firstResolveHeld(3);
    const events: WorkerEvent[] = [];
    await createWorker({
      server: server.url,
      process: "sdk_batch",
      concurrency: 4,
      once: true,
      fetch: held.fetch,
      onEvent: (event) => events.push(event),
      handler: held.handler((task) => {
        const amount = (task.external_input as { amount: number }).amount;
        // amount 3's answer does not match result_schema ({type: object}): refused inside the batch.
        return amount === 3 ? "not an object" : { amount };
      }),
    }).run();
    expect(held.count("resolve"), "only the first answer went alone").toBe(1);
    expect(held.count("resolve-batch"), "the three that were ready together went in one call").toBe(1);
    const released = events.filter((event) => event.type === "released");
    expect(events.filter((event) => event.type === "resolved")).toHaveLength(3);
    expect(released).toHaveLength(1);
    expect(released[0].type === "released" && released[0].reason).toMatch(/result_schema/);
    for (const [i, id] of ids.entries()) {
      if (i === 2)
        expect((await api.call("getInstance", { params: { id } })).status, "the refused task waits").toBe("running");
      else expect(await settled(id)).toMatchObject({ status: "completed" });
    }
  });

  it("a server without resolve-batch (404) gets single resolves from then on", async () => {
    const ids = await startMany("sdk_no_batch", [1, 2, 3]);
    const held = firstResolveHeld(2, (path) =>
      path === "resolve-batch"
        ? new Response(JSON.stringify({ code: "not_found", error: "no route POST /external-tasks/resolve-batch" }), {
            status: 404,
            headers: { "content-type": "application/json" },
          })
        : undefined,
    );
    const events: WorkerEvent[] = [];
    await createWorker({
      server: server.url,
      process: "sdk_no_batch",
      concurrency: 3,
      once: true,
      fetch: held.fetch,
      onEvent: (event) => events.push(event),
      handler: held.handler((task) => ({ amount: (task.external_input as { amount: number }).amount })),
    }).run();
    expect(held.count("resolve-batch"), "asked once").toBe(1);
    expect(held.count("resolve"), "then each answer alone").toBe(3);
    expect(events.filter((event) => event.type === "resolved")).toHaveLength(3);
    for (const id of ids) expect(await settled(id)).toMatchObject({ status: "completed" });
  });
});

describe("a worker process", () => {
  it("killed mid-task: a restarted worker claims the task once the lease lapses and resolves it", async () => {
    const id = await deployAndStart("sdk_crash");
    const first = childWorker({ PROCESS: "sdk_crash", LEASE_MS: "1000", MODE: "hang" });
    const claimed = await first.next("started");
    first.child.kill("SIGKILL");
    await first.exited;
    const second = childWorker({ PROCESS: "sdk_crash", LEASE_MS: "1000", MODE: "answer" });
    const again = await second.next("resolved");
    expect(again.token, "a new claim, not the dead worker's").not.toBe(claimed.token);
    expect(await settled(id)).toMatchObject({ status: "completed" });
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("on SIGTERM aborts its handler after the grace period and releases the task at once", async () => {
    const id = await deployAndStart("sdk_term");
    // A 10-minute lease: only the release can make the task claimable again within this test.
    const first = childWorker({ PROCESS: "sdk_term", LEASE_MS: "600000", MODE: "hang", GRACE_MS: "100" });
    await first.next("started");
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(first.seen.map((event) => event.type)).toEqual(["claimed", "started", "released", "stopped"]);
    expect(first.seen[2].reason).toBe("the worker is shutting down");
    const again = await api.call("claimExternalTasks", { body: { worker_id: "next", process: "sdk_term" } });
    expect(again.items).toHaveLength(1);
    await api.call("resolveExternalTask", { body: { token: again.items[0].token, result: {} } });
    expect(await settled(id)).toMatchObject({ status: "completed" });
  });
});
