import { json, startUpstream, type Upstream, createGate } from "@baton/testkit";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cancelTree, pauseTree, resumeTree, retryTree } from "../../src/engine/index.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness;
let up: Upstream;
/** Holds calls to /hold: a task in flight until the test releases it. */
const gate = createGate();

beforeAll(async () => {
  h = await openHarness();
  up = await startUpstream((req, res) => {
    if (req.path.startsWith("/hold")) return gate.hold(res, { held: true });
    if (req.path.startsWith("/fail")) return json(res, 500, { error: "boom" });
    json(res, 200, { ok: true });
  });
  await h.deploy({
    name: "two",
    tasks: [
      { id: "first", action: { type: "fetch", url: `${up.url}/hold` } },
      { id: "second", action: { type: "fetch", url: `${up.url}/ok` } },
    ],
  });
  await h.deploy({
    name: "quick",
    tasks: [
      { id: "first", action: { type: "fetch", url: `${up.url}/ok` } },
      { id: "second", action: { type: "fetch", url: `${up.url}/ok` } },
    ],
  });
  await h.deploy({
    name: "wait",
    tasks: [
      {
        id: "call",
        action: { type: "fetch", url: `${up.url}/fail` },
        on_error: [{ code: ["http.500"], retry: { retries: 1, delay: "1m" } }],
      },
    ],
  });
  await h.deploy({ name: "failing", tasks: [{ id: "call", action: { type: "fetch", url: `${up.url}/fail` } }] });
  await h.deploy({
    name: "failing_once",
    tasks: [{ id: "call", only_once: true, action: { type: "fetch", url: `${up.url}/fail` } }],
  });
});
// Each test starts from a quiet database: earlier trees are stopped and held calls answered.
beforeEach(async () => {
  gate.releaseAll();
  await h.db.execute(
    sql`update instances set status = 'cancelled', wake_at = null, requested = null where status not in ('completed', 'failed', 'raised', 'cancelled')`,
  );
});

afterAll(async () => {
  gate.releaseAll();
  await up?.close();
  await h?.close();
});

describe("pause and resume", () => {
  it("pauses an idle running tree at once (200) and resumes it where it stopped", async () => {
    const id = await h.start("quick");
    const paused = await pauseTree(h.db, h.clock, id, "token:op");
    expect(paused).toEqual({ outcome: "paused", status: "paused", instances: 1 });
    expect(await h.tick(), "a paused instance is not claimed").toBe(0);
    expect(await pauseTree(h.db, h.clock, id, "token:op"), "pausing a paused tree is a no-op").toEqual({
      status: "paused",
      instances: 0,
    });
    const resumed = await resumeTree(h.db, h.clock, id, "token:op");
    expect(resumed).toEqual({ outcome: "resumed", status: "running", instances: 1 });
    expect(await resumeTree(h.db, h.clock, id, "token:op"), "resuming a running tree").toEqual({
      status: "running",
      instances: 0,
    });
    await h.tick();
    expect((await h.get(id)).task).toBe("second");
    const logs = await h.logs(id);
    expect(logs.find((l) => l.event === "instance.paused")?.actor).toBe("token:op");
    expect(logs.find((l) => l.event === "instance.resumed")?.actor).toBe("token:op");
  });

  it("drains a task in flight (202 pausing), lands paused at the task boundary, and keeps the advance's result", async () => {
    const id = await h.start("two");
    const ticking = h.tick();
    await gate.whenParked();
    const pausing = await pauseTree(h.db, h.clock, id, "token:op");
    expect(pausing).toEqual({ outcome: "pausing", status: "pausing", instances: 1 });
    expect((await h.get(id)).requested).toBe("pause");
    gate.releaseOne();
    expect(await ticking).toBe(1);
    const view = await h.get(id);
    expect(view.status).toBe("paused");
    expect(view.task, "the advance landed: it moved on to the next task").toBe("second");
    expect(view.requested).toBeNull();
    expect(view.leaseOwner).toBeNull();
    expect(view.state.outputs.first).toEqual({ held: true });
    await resumeTree(h.db, h.clock, id, null);
    await h.tick();
    expect((await h.get(id)).status).toBe("completed");
  });

  it("resuming a pausing tree lets the in-flight advance just continue", async () => {
    const id = await h.start("two");
    const ticking = h.tick();
    await gate.whenParked();
    await pauseTree(h.db, h.clock, id, null);
    expect(await resumeTree(h.db, h.clock, id, null)).toEqual({
      outcome: "resumed",
      status: "running",
      instances: 1,
    });
    gate.releaseOne();
    await ticking;
    const view = await h.get(id);
    expect(view.status).toBe("running");
    expect(view.task).toBe("second");
  });

  it("keeps retry timers running while paused: a timer that expired meanwhile fires right after resume", async () => {
    const id = await h.start("wait");
    await h.tick();
    const waiting = await h.get(id);
    expect(waiting.retryCount).toBe(1);
    await pauseTree(h.db, h.clock, id, null);
    expect((await h.get(id)).wakeAt, "wake_at kept while paused").toBe(waiting.wakeAt);
    h.clock.advance(120_000);
    expect(await h.tick()).toBe(0);
    await resumeTree(h.db, h.clock, id, null);
    expect(await h.tick(), "due at once after resume").toBe(1);
    expect((await h.get(id)).status).toBe("failed");
  });

  it("finalises a pausing row whose worker died once its lease expires", async () => {
    const id = await h.start("two");
    const dying = h.newEngine("dies-while-pausing");
    void dying.tick();
    await gate.whenParked();
    await pauseTree(h.db, h.clock, id, null);
    h.clock.advance(11_000);
    await h.tick();
    const view = await h.get(id);
    expect(view.status).toBe("paused");
    expect(view.leaseOwner, "the dead owner stays recorded as evidence of a possible run").toBe("dies-while-pausing");
    expect((await h.logs(id)).map((l) => l.event)).toContain("instance.paused");
    await resumeTree(h.db, h.clock, id, null);
    const ticking = h.tick();
    await gate.whenParked(2);
    // Answer the dead worker's call too: its late write must be fenced out.
    gate.releaseAll();
    expect(await ticking).toBe(1);
    const after = await h.get(id);
    expect(after.previousOwner).toBe("dies-while-pausing");
    expect(after.task, "reclaimed and re-run").toBe("second");
    expect(after.status).toBe("running");
  });
});

describe("cancel", () => {
  it("cancels an idle tree at once (200); cancelled is terminal", async () => {
    const id = await h.start("quick");
    expect(await cancelTree(h.db, h.clock, id, "token:op")).toEqual({
      outcome: "cancelled",
      status: "cancelled",
      instances: 1,
    });
    const view = await h.get(id);
    expect(view.wakeAt).toBeNull();
    expect(await cancelTree(h.db, h.clock, id, null)).toEqual({ status: "cancelled", instances: 0 });
    await expect(resumeTree(h.db, h.clock, id, null)).rejects.toMatchObject({ name: "Refusal", kind: "conflict" });
    await expect(retryTree(h.db, h.clock, id, null, true)).rejects.toThrow(/cancelled instance is terminal/);
  });

  it("drains a task in flight (202 cancelling) and ends cancelled at the boundary", async () => {
    const id = await h.start("two");
    const ticking = h.tick();
    await gate.whenParked();
    expect(await cancelTree(h.db, h.clock, id, null)).toEqual({
      outcome: "cancelling",
      status: "cancelling",
      instances: 1,
    });
    gate.releaseOne();
    await ticking;
    const view = await h.get(id);
    expect(view.status).toBe("cancelled");
    expect(view.wakeAt).toBeNull();
    expect((await h.logs(id)).map((l) => l.event)).toEqual(
      expect.arrayContaining(["instance.cancelling", "instance.cancelled"]),
    );
  });

  it("a settled result wins over a pending pause", async () => {
    const id = await h.deployAndStart({
      name: "single",
      tasks: [{ id: "only", action: { type: "fetch", url: `${up.url}/hold` } }],
    });
    const ticking = h.tick();
    await gate.whenParked();
    await pauseTree(h.db, h.clock, id, null);
    gate.releaseOne();
    await ticking;
    expect((await h.get(id)).status).toBe("completed");
  });
});

describe("retry", () => {
  it("revives a failed instance at its failing task with a new task epoch", async () => {
    const id = await h.start("failing");
    await h.tick();
    const failed = await h.get(id);
    expect(failed.status).toBe("failed");
    const result = await retryTree(h.db, h.clock, id, "token:op", false);
    expect(result).toEqual({ outcome: "retried", status: "running", instances: 1 });
    const revived = await h.get(id);
    expect(revived).toMatchObject({
      status: "running",
      errorCode: null,
      errorMessage: null,
      taskEpoch: failed.taskEpoch + 1,
      task: "call",
    });
    const before = up.requests.length;
    await h.tick();
    expect(up.requests.length - before, "one more attempt").toBe(1);
    expect(up.requests.at(-1)!.headers["idempotency-key"]).toBe(`${id}:${failed.taskEpoch + 1}`);
    expect((await h.logs(id)).find((l) => l.event === "instance.retried")?.actor).toBe("token:op");
  });

  it("refuses a non-failed instance and an only_once failure without force", async () => {
    const running = await h.start("quick");
    await expect(retryTree(h.db, h.clock, running, null, false)).rejects.toThrow(
      /only a failed instance can be retried/,
    );
    const once = await h.start("failing_once");
    await h.tick();
    await expect(retryTree(h.db, h.clock, once, null, false)).rejects.toThrow(/force=true/);
    expect((await retryTree(h.db, h.clock, once, null, true)).outcome).toBe("retried");
  });
});
