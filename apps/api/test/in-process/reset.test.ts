// The reset verb (docs/safe-change.md "Reset"): a root goes back to a task with the exact state of
// its first entry, rebuilt from the visit journal, from every kind of task, after an upgrade, in
// bulk, and against an advance of another replica whose write is held (beforeWrite) until the
// reset has landed.
import { json, startUpstream, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.js";
import { sql } from "drizzle-orm";
import { createEngine, retentionPass } from "../../src/engine/index.js";
import { rowsOf } from "../../src/storage/db.js";
import { signalExternalTask } from "../../src/engine/external/signal.js";
import { pauseTree, resumeTree } from "../../src/engine/trees/lifecycle.js";
import { type ResetResult, resetTree } from "../../src/engine/trees/reset.js";
import { upgradeTree } from "../../src/engine/trees/upgrade.js";
import { bulkHandlers } from "../../src/handlers/bulk.js";
import { Refusal } from "../../src/refusal.js";
import type { Services } from "../../src/services.js";
import { type Harness, openHarness, quietLog } from "../support/engine-harness.js";

const HOUR = 3_600_000;
let h: Harness;
let up: Upstream;
let services: Services;
/** Calls of each upstream path so far; `/call` answers its own count. */
const calls = new Map<string, number>();
let chargeStatus = 503;

beforeAll(async () => {
  h = await openHarness();
  up = await startUpstream((req, res) => {
    const n = (calls.get(req.path) ?? 0) + 1;
    calls.set(req.path, n);
    if (req.path === "/charge") return json(res, chargeStatus, { charged: chargeStatus === 200 });
    if (req.path === "/fail") return json(res, 500, { error: "down" });
    json(res, 200, { v: n });
  });
  services = {
    db: h.db,
    database: h.database,
    dbKind: h.database.kind,
    clock: h.clock,
    config: h.config,
    log: quietLog,
    workerId: "worker-a",
    engine: h.engine,
    checker: h.checker,
  };
  await h.deploy({
    name: "double",
    input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    tasks: [{ id: "x", output: "$: input.n * 2" }],
    output: "$: outputs.x",
  });
  await h.deploy({ name: "waiter", tasks: [{ id: "w", action: { type: "external" } }] });
});
afterAll(async () => {
  await up?.close();
  await h?.close();
});

/** One task of every kind: routing, fetch, external, children, delay, routing, an only_once fetch. */
const order = (more: unknown[] = []) => ({
  name: "order",
  input_schema: { type: "object", properties: { n: { type: "integer" } } },
  tasks: [
    { id: "prep", output: { n: "$: input.n + 1" } },
    { id: "call", action: { type: "fetch", url: `${up.url}/call` } },
    { id: "wait", action: { type: "external", result_schema: { type: "object" } } },
    { id: "kids", action: { type: "child", name: "double", input: { n: "$: outputs.prep.n" } } },
    { id: "nap", action: { type: "delay", for: "1h" } },
    {
      id: "decide",
      switch: [{ case: "outputs.kids > 100", raise: { code: "too_big", message: "too big" } }, { goto: "next" }],
    },
    ...more,
    { id: "charge", only_once: true, action: { type: "fetch", method: "post", url: `${up.url}/charge` } },
  ],
});

const reset = (id: string, task: string, force = false, paused = false): Promise<ResetResult> =>
  resetTree(h.db, h.clock, id, task, "op", {
    force,
    paused,
    objectThresholdBytes: h.config.objectThresholdBytes,
    visitRecordFlag: "--limit-visit-record-bytes",
  });

async function refusal(promise: Promise<unknown>): Promise<Refusal> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(Refusal);
    return error as Refusal;
  }
  throw new Error("expected a refusal");
}

/** Ticks (the clock moving `stepMs` each time) until the instance sits on `task` in `phase`-less or parked state. */
async function tickUntil(id: string, done: (v: Awaited<ReturnType<Harness["get"]>>) => boolean, stepMs = 0) {
  for (let i = 0; i < 40; i++) {
    const view = await h.get(id);
    if (done(view)) return view;
    await h.tick(stepMs);
  }
  throw new Error(`instance ${id} never reached the state waited for: ${JSON.stringify(await h.get(id))}`);
}

/** Runs an `order` instance to where it waits on `wait`, answers it, and runs on to the end. */
async function runOrder(id: string): Promise<Awaited<ReturnType<Harness["get"]>>> {
  await tickUntil(id, (v) => v.task === "wait" && v.state._wait !== undefined);
  await signalExternalTask(h.db, h.clock, id, "wait", { result: { ok: true } }, "worker");
  return h.runToEnd(id, 2 * HOUR, 60);
}

/** The state an `order` instance with input n=1 had on entering each task, for a child id and a call count. */
function entryStates(child: string, call: number) {
  const input = { n: 1 };
  const prep = { input, outputs: {}, _children: {} };
  const callState = { input, outputs: { prep: { n: 2 } }, _children: {} };
  const wait = { input, outputs: { prep: { n: 2 }, call: { v: call } }, _children: {} };
  const kids = { input, outputs: { ...wait.outputs, wait: { ok: true } }, _children: {} };
  const nap = { input, outputs: { ...kids.outputs, kids: 4 }, _children: { kids: child } };
  const decide = { input, outputs: { ...nap.outputs, nap: null }, _children: { kids: child } };
  return { prep, call: callState, wait, kids, nap, decide, charge: decide };
}

describe("reset from every kind of task", () => {
  it("restores the exact state of the task's first entry, from failed and from paused, and runs on from there", async () => {
    chargeStatus = 503;
    await h.deploy(order());
    const id = await h.start("order", { n: 1 });
    const failed = await runOrder(id);
    expect(failed).toMatchObject({ status: "failed", task: "charge", errorCode: "http.503" });
    const child = failed.state._children.kids as string;
    const expected = entryStates(child, calls.get("/call")!);

    const blocked = await refusal(reset(id, "call"));
    expect(blocked.kind).toBe("conflict");
    expect(blocked.message).toContain('only_once task "charge"');
    expect((await h.get(id)).status, "a refused reset changes nothing").toBe("failed");

    let epoch = failed.taskEpoch;
    for (const task of ["charge", "decide", "nap", "kids", "wait", "call", "prep"] as const) {
      const answer = await reset(id, task, true);
      epoch += 1;
      expect(answer).toMatchObject({ outcome: "reset", task, task_epoch: epoch, restored_from: { entered: true } });
      const view = await h.get(id);
      expect(view, task).toMatchObject({ task, taskEpoch: epoch, errorCode: null, retryCount: 0 });
      expect(view.state, `the state on first entering ${task}`).toEqual(expected[task]);
      // The first reset starts from failed, the next ones from paused.
      expect(answer.status).toBe(task === "charge" ? "running" : "paused");
      if (answer.status === "running")
        expect(await pauseTree(h.db, h.clock, id, "op")).toMatchObject({ outcome: "paused" });
    }
    const logs = (await h.logs(id)).filter((l) => l.event === "instance.reset");
    expect(logs).toHaveLength(7);
    expect(logs[0]).toMatchObject({ actor: "op", task: "charge", data: { from_status: "failed", dropped: [] } });
    expect(logs[3]!.data).toMatchObject({ dropped: ["kids"], children_detached: 1, children_cancelled: 0 });
    // The outputs dropped from the state stay in the audit log.
    expect((await h.logs(id)).filter((l) => l.event === "task.completed" && l.task === "call")).toHaveLength(1);

    chargeStatus = 200;
    expect(await resumeTree(h.db, h.clock, id, "op")).toMatchObject({ outcome: "resumed" });
    const done = await runOrder(id);
    expect(done.status).toBe("completed");
    expect(done.state.outputs.call, "call ran again").toEqual({ v: calls.get("/call") });
    expect(done.state.outputs.charge).toEqual({ charged: true });
    expect(done.state._children.kids, "a new child").not.toBe(child);
  });

  it("keeps the error root of a task entered through on_error", async () => {
    await h.deploy({
      name: "errs",
      tasks: [
        { id: "a", action: { type: "fetch", url: `${up.url}/fail` }, on_error: [{ code: "http.%", goto: "$b" }] },
        { id: "b", output: { seen: "$: error.code" } },
        { id: "c", action: { type: "fetch", url: `${up.url}/fail` } },
      ],
    });
    const id = await h.start("errs");
    const failed = await h.runToEnd(id);
    expect(failed).toMatchObject({ status: "failed", task: "c" });
    expect(failed.state._error).toBeUndefined();
    await reset(id, "b");
    const view = await h.get(id);
    expect(view.state).toEqual({
      input: {},
      outputs: {},
      _children: {},
      _error: expect.objectContaining({ task: "a", code: "http.500" }),
    });
    const again = await h.runToEnd(id);
    expect(again).toMatchObject({ status: "failed", task: "c" });
    expect(again.state.outputs.b).toEqual({ seen: "http.500" });
  });

  it("goes back to the first visit of a loop, whose outputs later visits overwrote", async () => {
    await h.deploy({
      name: "loop",
      tasks: [
        { id: "count", output: "$: (outputs.count ?? 0) + 1" },
        {
          id: "w",
          action: { type: "external" },
          switch: [{ case: "outputs.count < 3", goto: "$count" }, { goto: "next" }],
        },
        { id: "fin", output: "$: outputs.count" },
      ],
    });
    const id = await h.start("loop");
    for (let i = 0; i < 3; i++) {
      await tickUntil(id, (v) => v.task === "w" && v.state._wait !== undefined);
      await signalExternalTask(h.db, h.clock, id, "w", { result: { i } }, "worker");
    }
    const done = await h.runToEnd(id);
    expect(done.state.outputs).toEqual({ count: 3, w: { i: 2 }, fin: 3 });
    await reset(id, "w");
    expect((await h.get(id)).state.outputs).toEqual({ count: 1 });
    await pauseTree(h.db, h.clock, id, "op");
    await reset(id, "fin");
    expect((await h.get(id)).state.outputs, "fin was first entered after the third visit of w").toEqual({
      count: 3,
      w: { i: 2 },
    });
  });

  it("cancels a live child spawned after the point, and the task spawns a new one", async () => {
    await h.deploy({
      name: "parent_live",
      tasks: [
        { id: "p", action: { type: "child", name: "waiter" } },
        { id: "q", output: "$: outputs.p" },
      ],
    });
    const id = await h.start("parent_live");
    const parked = await tickUntil(id, (v) => v.state._children.p !== undefined, 0);
    const child = parked.state._children.p as string;
    await tickUntil(child, (v) => v.state._wait !== undefined);
    expect(await pauseTree(h.db, h.clock, id, "op")).toMatchObject({ outcome: "paused" });
    const answer = await reset(id, "p");
    expect(answer).toMatchObject({ status: "paused", instances: 2, children: { cancelled: 1, detached: 0 } });
    expect((await h.get(child)).status).toBe("cancelled");
    expect((await h.get(id)).state).toEqual({ input: {}, outputs: {}, _children: {} });
    await resumeTree(h.db, h.clock, id, "op");
    const respawned = await tickUntil(id, (v) => v.state._children.p !== undefined);
    expect(respawned.state._children.p).not.toBe(child);
  });

  it("refuses a running root, and a task its version does not have", async () => {
    await h.deploy({ name: "parked", tasks: [{ id: "w", action: { type: "external" } }] });
    const id = await h.start("parked");
    await h.tick();
    const running = await refusal(reset(id, "w"));
    expect(running.message).toBe(
      `instance ${id} is running; reset acts on a failed, raised, completed or paused instance (pause a running one first; a pausing one is still finishing its task)`,
    );
    await pauseTree(h.db, h.clock, id, "op");
    const unknown = await refusal(reset(id, "nope"));
    expect([unknown.kind, unknown.message]).toEqual(["not_found", 'process "parked" version 1 has no task "nope"']);
  });
});

describe("reset after an upgrade", () => {
  it("restores the state entered under the old version and runs on under the new one", async () => {
    chargeStatus = 503;
    const v1 = await h.deploy(order());
    const id = await h.start("order", { n: 1 }, v1);
    await tickUntil(id, (v) => v.task === "wait" && v.state._wait !== undefined);
    const callCount = calls.get("/call")!;
    await signalExternalTask(h.db, h.clock, id, "wait", { result: { ok: true } }, "worker");
    const napping = await tickUntil(id, (v) => v.task === "nap" && v.wakeAt !== null && v.wakeAt > h.clock.now());
    const v2 = await h.deploy(order([{ id: "audit", output: { checked: true } }]));
    expect(await upgradeTree(h.db, h.clock, id, v1, v2, "op", h.upgradeCheck())).toMatchObject({ upgraded: true });
    expect(await pauseTree(h.db, h.clock, id, "op")).toMatchObject({ outcome: "paused" });

    // audit was never entered; nap (the current visit) leads there: the state is nap's as it stands.
    const skip = await reset(id, "audit");
    expect(skip.restored_from).toEqual({ task_epoch: napping.taskEpoch, entered: false });
    expect((await h.get(id)).state.outputs).toEqual(napping.state.outputs);

    await reset(id, "wait");
    const child = napping.state._children.kids as string;
    expect((await h.get(id)).state).toEqual(entryStates(child, callCount).wait);
    chargeStatus = 200;
    await resumeTree(h.db, h.clock, id, "op");
    const done = await runOrder(id);
    expect(done.status).toBe("completed");
    expect(done.state.outputs.audit, "the new version's task ran").toEqual({ checked: true });
  });
});

describe("reset, then upgrade, of a failed instance (docs/safe-change.md walk-through)", () => {
  it("lands paused with paused: true, moves to the fixed version and completes there", async () => {
    chargeStatus = 503;
    const v1 = await h.deploy(order());
    const id = await h.start("order", { n: 1 }, v1);
    expect(await runOrder(id)).toMatchObject({ status: "failed", task: "charge" });
    const v2 = await h.deploy(order([{ id: "audit", output: { checked: true } }]));
    expect(await reset(id, "decide", true, true)).toMatchObject({ status: "paused", task: "decide" });
    expect(await upgradeTree(h.db, h.clock, id, v1, v2, "op", h.upgradeCheck())).toMatchObject({ upgraded: true });
    chargeStatus = 200;
    await resumeTree(h.db, h.clock, id, "op");
    const done = await h.runToEnd(id, 2 * HOUR);
    expect(done).toMatchObject({ status: "completed", task: "charge" });
    expect(done.state.outputs.audit).toEqual({ checked: true });
    const events = (await h.logs(id)).map((l) => l.event);
    expect(events.indexOf("instance.reset")).toBeLessThan(events.indexOf("instance.upgraded"));
  });
});

describe("bulk reset", () => {
  it("previews the roots its filters select, then resets each to the task", async () => {
    chargeStatus = 503;
    await h.deploy({
      name: "bulky",
      tasks: [
        { id: "reserve", action: { type: "fetch", url: `${up.url}/reserve` } },
        { id: "charge", action: { type: "fetch", url: `${up.url}/charge` } },
      ],
    });
    const ids = [await h.start("bulky"), await h.start("bulky"), await h.start("bulky")];
    for (const id of ids) expect(await h.runToEnd(id)).toMatchObject({ status: "failed", task: "charge" });
    const request = (body: Record<string, unknown>) =>
      ({
        action: {},
        params: {},
        query: {},
        body: { process: "bulky", status: "failed", task: "charge", ...body },
        principal: { actor: "token:ops", perms: ["operate"], scopes: null },
        headers: new Headers(),
      }) as any;
    const preview = await bulkHandlers.bulkResetInstances!(request({ to_task: "reserve", dry_run: true }), services);
    expect((preview as any).body).toMatchObject({ dry_run: true, counts: { matched: 3 } });
    expect([...(preview as any).body.ids.matched].sort()).toEqual([...ids].sort());
    for (const id of ids) expect((await h.get(id)).status, "a preview changes nothing").toBe("failed");

    const done = await bulkHandlers.bulkResetInstances!(request({ to_task: "reserve" }), services);
    expect((done as any).body).toMatchObject({ dry_run: false, counts: { reset: 3 }, refused: [] });
    for (const id of ids)
      expect(await h.get(id)).toMatchObject({ status: "running", task: "reserve", state: { outputs: {} } });
    const again = await bulkHandlers.bulkResetInstances!(request({ to_task: "reserve" }), services);
    expect((again as any).body.counts, "none is failed at charge any more").toEqual({});
  });
});

describe("a reset racing an advance of another replica", () => {
  it("is refused while the root is pausing, then fences out the advance whose lease lapsed", async () => {
    await h.deploy({
      name: "race",
      tasks: [
        { id: "a", action: { type: "fetch", url: `${up.url}/a` } },
        { id: "b", action: { type: "fetch", url: `${up.url}/b` } },
        { id: "c", action: { type: "fetch", url: `${up.url}/c` } },
      ],
    });
    const id = await h.start("race");
    await h.tick();
    expect(await h.get(id)).toMatchObject({ task: "b", taskEpoch: 2 });
    // Replica B has its own clock (a replica whose advance stalls: its lease, renewed on its
    // clock, has run out on ours). Its advance of b is held between computing and writing.
    let computed!: () => void;
    const isComputed = new Promise<void>((resolve) => (computed = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const clockOfB = createClock();
    clockOfB.advance(Math.max(0, h.clock.now() - clockOfB.now()));
    const b = createEngine({
      db: h.db,
      clock: clockOfB,
      config: h.config,
      log: quietLog,
      workerId: "worker-b",
      beforeWrite: async (instance) => {
        if (instance !== id) return;
        computed();
        await released;
      },
    });
    try {
      const ticking = b.tick();
      await isComputed;
      expect(await pauseTree(h.db, h.clock, id, "op")).toMatchObject({ outcome: "pausing" });
      const pausing = await refusal(reset(id, "a"));
      expect(pausing.message).toContain("is pausing");

      h.clock.advance(60_000);
      await h.tick(); // B's lease has lapsed on this replica's clock: the pause lands.
      expect((await h.get(id)).status).toBe("paused");
      const before = await h.get(id);
      const answer = await reset(id, "a");
      expect(answer).toMatchObject({ status: "paused", task: "a", task_epoch: 3, dropped: ["a"] });

      release();
      await ticking;
      const after = await h.get(id);
      expect(after).toMatchObject({ status: "paused", task: "a", taskEpoch: 3, leaseEpoch: before.leaseEpoch + 1 });
      expect(after.state).toEqual({ input: {}, outputs: {}, _children: {} });
      expect((await h.logs(id)).filter((l) => l.event === "task.completed" && l.task === "b")).toHaveLength(0);

      await resumeTree(h.db, h.clock, id, "op");
      const done = await h.runToEnd(id);
      expect(done.status).toBe("completed");
      expect(Object.keys(done.state.outputs)).toEqual(["a", "b", "c"]);
    } finally {
      release();
      await b.stop();
    }
  });
});

describe("the visit journal under retention", () => {
  it("goes with its tree: --retention deletes an old settled tree's journal rows", async () => {
    await h.deploy({
      name: "kept",
      tasks: [
        { id: "a", output: 1 },
        { id: "b", output: 2 },
        { id: "c", switch: [{ raise: { code: "done", message: "done" } }] },
      ],
    });
    const id = await h.start("kept");
    expect(await h.runToEnd(id)).toMatchObject({ status: "raised" });
    const journal = async () =>
      Number(
        rowsOf<{ n: unknown }>(
          await h.db.execute(sql`SELECT count(*) AS n FROM task_visits WHERE instance_id = ${id}`),
        )[0]!.n,
      );
    expect(await journal(), "one row per entry after the first").toBe(2);
    h.clock.advance(2 * HOUR);
    let pruned = 0;
    for (let i = 0; i < 20; i++) {
      const pass = await retentionPass(h.db, h.clock.now(), { retentionMs: HOUR }, {});
      pruned += pass.rows.task_visits ?? 0;
      if (!pass.more) break;
    }
    expect(await journal()).toBe(0);
    expect(pruned).toBeGreaterThanOrEqual(2);
  });
});
