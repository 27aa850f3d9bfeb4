// The one-version resolve (docs/engine.md "Resolving an external task"): the advance computed in
// memory and written with the resolve, byte for byte what the plain resolve and the pump's
// advance store, and every race it can meet ordered by a hold between computing and writing.
import type { Json } from "@baton/expr";
import { sql } from "drizzle-orm";
import { until } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askOnce } from "../../../test/support/definitions.js";
import { type Harness, openHarness } from "../../../test/support/engine-harness.js";
import { refusal } from "../../../test/support/refusal.js";
import type { EngineHandle } from "../index.js";
import { rowsOf } from "../../storage/db.js";
import { cancelTree, pauseTree, resumeTree } from "../trees/lifecycle.js";
import { claimFacts } from "./claim-facts.js";
import { claimExternalTasks, tokenHash } from "./claims.js";
import type { EngineForRequests } from "../carry.js";
import { resolveExternalTask, resolveExternalTasks } from "./outcomes.js";

let h: Harness;

/** What task q raises and how each code routes. */
const routed = {
  raises: { no: null, stop: null, again: null },
  on_error: [
    { code: "no", goto: "end" },
    { code: "again", retry: { retries: 2, delay: "1s" } },
  ],
};
const inputSchema = { type: "object", properties: { x: { type: "integer" } } };

beforeAll(async () => {
  h = await openHarness();
  const [q] = askOnce("", routed).tasks;
  // Completes (output from the outcome and the input), or raises through a switch.
  await h.deploy(
    askOnce("adv_done", routed, {
      input_schema: inputSchema,
      tasks: [
        q,
        {
          id: "check",
          switch: [{ case: "outputs.q.n < 0", raise: { code: "negative", message: "below 0" } }, { goto: "end" }],
        },
      ],
      output: { n: "$: outputs.q.n", x: "$: input.x" },
    }),
  );
  // Checkpoints at the next action task (a delay): running, due at once.
  await h.deploy(
    askOnce("adv_then_delay", routed, { tasks: [q, { id: "rest", action: { type: "delay", for: "1m" } }] }),
  );
});
afterAll(async () => {
  await h?.close();
});

async function parked(process: string, input: Json = {}): Promise<{ id: string; token: string }> {
  const id = await h.start(process, input);
  await h.tick();
  return { id, token: await claimFor(id, process, "w") };
}

/** A claim of `id`'s parked task (any other claimable task of `process` is claimed too, and left). */
async function claimFor(id: string, process: string, workerId: string): Promise<string> {
  const items = await claimExternalTasks(h.db, h.clock, { workerId, limit: 100, claimMs: 30_000, process });
  for (const item of items) {
    const [row] = rowsOf<{ instance_id: string }>(
      await h.db.execute(sql`SELECT instance_id FROM external_claims WHERE token_hash = ${tokenHash(item.token)}`),
    );
    if (row.instance_id === id) return item.token;
  }
  throw new Error(`no claim for ${id}`);
}

/**
 * What a row stores from its resolve on, without the instants (each instance has its own): the
 * lines from external.resolved on, so not the arming line (its deadline is an instant).
 */
async function stored(id: string) {
  const v = await h.get(id);
  const all = await h.logs(id);
  const logs = all
    .slice(all.findIndex((l) => l.event === "external.resolved"))
    .map(({ event, level, task, actor, data, message }) => ({ ...{ event, level, task, actor, data, message } }));
  return {
    ...{ status: v.status, task: v.task, taskEpoch: v.taskEpoch, retryCount: v.retryCount, state: v.state },
    ...{ output: v.output, errorCode: v.errorCode, errorMessage: v.errorMessage, leaseOwner: v.leaseOwner },
    logs,
  };
}

/**
 * h.engine whose in-memory advance stops, once computed for `id`, until released: the resolve
 * has read and computed, and has not written. What a test does meanwhile races the write.
 */
function heldAfterCompute(id: string) {
  let computedNow!: () => void;
  const computed = new Promise<void>((resolve) => (computedNow = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const engine: EngineForRequests = {
    ...h.engine,
    advanceInMemory: async (row) => {
      const result = await h.engine.advanceInMemory(row);
      if (row.id === id) {
        computedNow();
        await released;
      }
      return result;
    },
  };
  return { engine, computed, release };
}

const resolvedLines = async (id: string) => (await h.logs(id)).filter((l) => l.event === "external.resolved");

describe("the one-version resolve", () => {
  it.each([
    ["a result that completes the instance", "adv_done", { result: { n: 4 } }, "completed"],
    ["an error outcome routed to the end", "adv_done", { error: { code: "no" } }, "completed"],
    ["an uncaught error outcome", "adv_done", { error: { code: "stop", message: "stopped" } }, "failed"],
    ["a result a switch raises on", "adv_done", { result: { n: -1 } }, "raised"],
    ["a result followed by another action task", "adv_then_delay", { result: { n: 5 } }, "running"],
  ] as const)(
    "stores exactly what the plain resolve and the pump's advance store: %s",
    async (_, process, outcome, status) => {
      const plain = await parked(process, { x: 7 });
      const advanced = await parked(process, { x: 7 });
      // The plain path: the resolve statement, then the advance as the pump runs it.
      await resolveExternalTask(h.db, h.clock, plain.token, outcome as never, "tester");
      expect((await h.get(plain.id)).status, "the plain resolve leaves the row due").toBe("running");
      expect(await h.tick()).toBe(1);
      // The one-version path: the resolve itself leaves the row where the advance took it.
      await resolveExternalTask(h.db, h.clock, advanced.token, outcome as never, "tester", h.engine);
      const one = await stored(advanced.id);
      expect(one.status).toBe(status);
      expect(one).toEqual(await stored(plain.id));
      expect(one.logs.find((l) => l.event === "external.resolved")).toMatchObject({ actor: "tester" });
    },
  );

  it("a retry the outcome schedules is written with the resolve", async () => {
    const { id, token } = await parked("adv_done");
    const before = h.clock.now();
    await resolveExternalTask(h.db, h.clock, token, { error: { code: "again" } }, null, h.engine);
    const view = await h.get(id);
    expect(view).toMatchObject({ status: "running", task: "q", retryCount: 1, leaseOwner: null });
    expect(view.wakeAt).toBeGreaterThan(before);
    expect(view.state._outcome).toBeUndefined();
    expect((await h.logs(id)).map((l) => l.event).slice(-3)).toEqual([
      "external.resolved",
      "task.failed",
      "task.retry_scheduled",
    ]);
  });

  it("computes from the row as it is: a state changed after the claim fences the write out, and the plain path reads the new one", async () => {
    const { id, token } = await parked("adv_done", { x: 1 });
    await h.db.execute(sql`UPDATE instances SET state = replace(state, '"x":1', '"x":2') WHERE id = ${id}`);
    await resolveExternalTask(h.db, h.clock, token, { result: { n: 3 } }, null, h.engine);
    expect((await h.get(id)).status, "fenced out: the plain resolve left it due").toBe("running");
    await h.tick();
    expect((await h.get(id)).output).toEqual({ n: 3, x: 2 });
  });

  it("two resolves of one token racing: one lands in one version, the other is a late answer (409)", async () => {
    const { id, token } = await parked("adv_done");
    const held = heldAfterCompute(id);
    const first = resolveExternalTask(h.db, h.clock, token, { result: { n: 1 } }, null, held.engine);
    await held.computed;
    // The remembered claim went with the first resolve: the second reads it, as another replica would.
    await resolveExternalTask(h.db, h.clock, token, { result: { n: 2 } }, null, h.engine);
    held.release();
    expect((await refusal(first)).message).toMatch(/is completed; it no longer waits/);
    expect((await h.get(id)).output).toEqual({ n: 2, x: null });
    expect(await resolvedLines(id)).toHaveLength(1);
  });

  it("a pause landing between computing and writing: the outcome is recorded, the instance stays paused", async () => {
    const { id, token } = await parked("adv_done");
    const held = heldAfterCompute(id);
    const resolving = resolveExternalTask(h.db, h.clock, token, { result: { n: 6 } }, null, held.engine);
    await held.computed;
    await pauseTree(h.db, h.clock, id, null);
    held.release();
    await resolving;
    const view = await h.get(id);
    expect(view.status).toBe("paused");
    expect(view.state._outcome).toMatchObject({ result: { n: 6 } });
    await resumeTree(h.db, h.clock, id, null);
    await h.tick();
    expect((await h.get(id)).output).toEqual({ n: 6, x: null });
  });

  it("a cancel landing between computing and writing wins: the resolve is refused (409)", async () => {
    const { id, token } = await parked("adv_done");
    const held = heldAfterCompute(id);
    const resolving = resolveExternalTask(h.db, h.clock, token, { result: { n: 6 } }, null, held.engine);
    await held.computed;
    await cancelTree(h.db, h.clock, id, null);
    held.release();
    expect((await refusal(resolving)).kind).toBe("conflict");
    expect((await h.get(id)).status).toBe("cancelled");
    expect(await resolvedLines(id)).toEqual([]);
  });

  it("a claim that lapses and is taken by another worker between computing and writing: refused, the new claim resolves", async () => {
    const { id, token } = await parked("adv_done");
    const held = heldAfterCompute(id);
    const resolving = resolveExternalTask(h.db, h.clock, token, { result: { n: 6 } }, null, held.engine);
    await held.computed;
    // The database stalled past the claim's expiry (30 s), and another worker claimed the task.
    h.clock.advance(31_000);
    const again = await claimFor(id, "adv_done", "w2");
    held.release();
    expect((await refusal(resolving)).message).toMatch(/no longer live/);
    await resolveExternalTask(h.db, h.clock, again, { result: { n: 8 } }, null, h.engine);
    expect((await h.get(id)).output).toEqual({ n: 8, x: null });
    expect(await resolvedLines(id)).toHaveLength(1);
  });

  it("a worker raising the timeout meanwhile is fenced out: the answer wins", async () => {
    const { id, token } = await parked("adv_done");
    h.clock.advance(61_000);
    let computedNow!: () => void;
    const computed = new Promise<void>((resolve) => (computedNow = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker: EngineHandle = h.newEngine(
      "worker-raising-timeout",
      {},
      {
        beforeWrite: async (at) => {
          if (at !== id) return;
          computedNow();
          await released;
        },
      },
    );
    const ticking = worker.tick();
    await computed;
    // The claim still holds (its 30 s were renewed past the deadline).
    await h.db.execute(
      sql`UPDATE external_waits SET claim_expires_at = ${h.clock.now() + 30_000} WHERE instance_id = ${id}`,
    );
    await resolveExternalTask(h.db, h.clock, token, { result: { n: 2 } }, null, h.engine);
    release();
    await ticking;
    const view = await h.get(id);
    expect(view, "the timeout's write was fenced out").toMatchObject({
      status: "completed",
      output: { n: 2, x: null },
      errorCode: null,
    });
    expect((await h.logs(id)).filter((l) => l.event === "task.failed")).toEqual([]);
  });

  it("a state holding stored objects takes the plain path (reading them is I/O) and ends the same", async () => {
    const big = await openHarness({ objectThresholdBytes: 1024 });
    try {
      await big.deploy(
        askOnce("adv_big", routed, { input_schema: { type: "object", properties: { blob: { type: "string" } } } }),
      );
      const id = await big.start("adv_big", { blob: "b".repeat(4096) });
      await big.tick();
      expect((await big.get(id)).state.input.blob, "the armed row stores the input as an object").toHaveProperty(
        "$ref",
      );
      const [item] = await claimExternalTasks(big.db, big.clock, { workerId: "w", limit: 1, claimMs: 30_000 });
      await resolveExternalTask(big.db, big.clock, item.token, { result: { n: 1 } }, null, big.engine);
      expect((await big.get(id)).status, "the plain resolve leaves the row due").toBe("running");
      await big.tick();
      expect(await big.get(id)).toMatchObject({ status: "completed", output: { n: 1 } });
    } finally {
      await big.close();
    }
  });

  it("an error computing the advance falls back to the plain path: the outcome is recorded, the pump advances", async () => {
    const { id, token } = await parked("adv_done");
    const failing: EngineForRequests = {
      ...h.engine,
      advanceInMemory: () => Promise.reject(new Error("the definition could not be read")),
    };
    await resolveExternalTask(h.db, h.clock, token, { result: { n: 9 } }, null, failing);
    expect((await h.get(id)).status, "the plain resolve leaves the row due").toBe("running");
    await h.tick();
    expect(await h.get(id)).toMatchObject({ status: "completed", output: { n: 9, x: null } });
  });

  it("an advance that stops at the next action task is carried on under the lease the statement kept", async () => {
    // Its own database: a running pump claims whatever is due, and this test wants only its instance.
    const own = await openHarness();
    try {
      await own.deploy(
        askOnce("adv_carried", routed, {
          tasks: [askOnce("", routed).tasks[0], { id: "rest", action: { type: "delay", for: "1m" } }],
        }),
      );
      const id = await own.start("adv_carried");
      await own.tick();
      const [item] = await claimExternalTasks(own.db, own.clock, { workerId: "w", limit: 1, claimMs: 30_000 });
      const before = (await own.get(id)).leaseEpoch;
      // A pump that is on (so it carries) but never polls within the test.
      const carrier = own.newEngine("carrier", { pollMs: 600_000 });
      await resolveExternalTask(own.db, own.clock, item.token, { result: { n: 1 } }, null, carrier);
      const armed = await until("the carried advance to arm the delay", async () => {
        const view = await own.get(id);
        // While the carrier holds it, the row sits at "rest" leased, due at the lease's expiry.
        return view.task === "rest" && view.leaseOwner === null ? view : undefined;
      });
      expect(armed).toMatchObject({ status: "running", retryCount: 0 });
      expect(armed.wakeAt, "the delay's minute, not the lease's 10 s").toBeGreaterThan(own.clock.now() + 30_000);
      // One lease_epoch move, the resolve's: no claim round took the row, the kept lease ran it.
      expect(armed.leaseEpoch, "carried, never claimed").toBe(before + 1);
      await carrier.stop();
    } finally {
      await own.close();
    }
  });

  it("resolve-batch writes each item's advance in the one statement; the others take their usual paths", async () => {
    const a = await parked("adv_done");
    const b = await parked("adv_then_delay");
    const paused = await parked("adv_done");
    await pauseTree(h.db, h.clock, paused.id, null);
    const answers = await resolveExternalTasks(
      h.db,
      h.clock,
      [
        { token: a.token, outcome: { result: { n: 1 } } },
        { token: b.token, outcome: { result: { n: 2 } } },
        { token: paused.token, outcome: { result: { n: 3 } } },
        { token: a.token, outcome: { result: { n: 4 } } },
      ],
      null,
      h.engine,
    );
    expect(answers.map((x) => (x.resolved ? "ok" : x.refusal.kind))).toEqual(["ok", "ok", "ok", "conflict"]);
    expect(await h.get(a.id)).toMatchObject({ status: "completed", output: { n: 1, x: null } });
    expect(await h.get(b.id)).toMatchObject({ status: "running", task: "rest" });
    expect((await h.get(paused.id)).status, "a paused row only records the outcome").toBe("paused");
    expect(claimFacts(h.db).get(tokenHash(a.token)), "answered claims are forgotten").toBeUndefined();
  });
});
