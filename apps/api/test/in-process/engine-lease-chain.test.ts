// The pump runs an instance's next advance under the lease its last write kept (engine.ts
// runChain, commit.ts keepLeaseFor): these tests pin what that must not change — fencing,
// operator verbs at the task boundary, a clean hand-back on stop, and /tick's one-cycle answer.
import { json, startUpstream, type Upstream, createGate, until } from "@baton/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { pauseTree, cancelTree } from "../../src/engine/trees/lifecycle.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness | undefined;
let up: Upstream | undefined;

afterEach(async () => {
  await up?.close();
  await h?.close();
  up = undefined;
  h = undefined;
});

const threeCalls = (url: string) => ({
  name: "three",
  tasks: [
    { id: "one", action: { type: "fetch", method: "post", url: `${url}/one` } },
    { id: "two", action: { type: "fetch", method: "post", url: `${url}/two` } },
    { id: "three", action: { type: "fetch", method: "get", url: `${url}/three` } },
  ],
});

/** Starts `three` under the pump and returns once its chained second call is parked in the gate. */
async function secondCallInFlight() {
  const gate = createGate();
  const upstream = await startUpstream((_req, res) => gate.hold(res, { ok: true }));
  up = upstream;
  const harness = await openHarness({ pollMs: 10 });
  h = harness;
  const id = await harness.deployAndStart(threeCalls(upstream.url));
  await until("the first call", async () => (gate.parked === 1 ? true : undefined));
  gate.releaseOne();
  await until("the chained second call", async () => (gate.parked === 1 ? true : undefined));
  return { gate, id, h: harness, up: upstream };
}

describe("lease chaining under the pump", () => {
  it("runs consecutive fetch tasks under one lease, at most 16 advances per claim", async () => {
    up = await startUpstream((_r, res) => json(res, 200, { ok: true }));
    h = await openHarness({ pollMs: 10 });
    const id = await h.deployAndStart({
      name: "loop40",
      tasks: [
        {
          id: "call",
          action: { type: "fetch", method: "post", url: `${up.url}/call` },
          output: "$: (self.previous ?? 0) + 1",
          switch: [{ case: "self.output < 40", goto: "$call" }, { goto: "end" }],
        },
      ],
      output: "$: outputs.call",
    });
    const view = await until("loop40 to complete", async () => {
      const v = await h!.get(id);
      return v.status === "running" ? undefined : v;
    });
    expect(view.status).toBe("completed");
    expect(view.output).toBe(40);
    expect(up.requests.length, "each of the 40 visits calls the upstream once").toBe(40);
    const keys = up.requests.map((r) => r.headers["idempotency-key"]);
    expect(new Set(keys).size, "every visit is a new task entry with its own Idempotency-Key").toBe(40);
    // 40 advances = chains of 16 + 16 + 8: three claims, each one lease_epoch.
    expect(view.leaseEpoch, "a kept lease must not bump the fence, and a chain must end after 16 advances").toBe(3);
    expect(view.leaseOwner, "the completing write releases the lease").toBeNull();
    const events = (await h.logs(id)).map((l) => l.event);
    expect(events, "a kept lease is not a reclaim").not.toContain("lease.reclaimed");
    expect(events.filter((e) => e === "task.started")).toHaveLength(40);
  });

  it("lands a pause requested while a chained advance is in flight at that task's boundary", async () => {
    const { gate, id, h, up } = await secondCallInFlight();
    const inFlight = await h.get(id);
    expect(inFlight.task).toBe("two");
    expect(inFlight.leaseOwner, "the second advance runs under the kept lease").toBe("worker-a");
    expect(inFlight.leaseEpoch, "no second claim happened").toBe(1);

    const paused = await pauseTree(h.db, h.clock, id, "tester");
    expect(paused.outcome, "a live lease means the pause waits for the boundary").toBe("pausing");
    gate.releaseOne();
    const view = await until("the pause to land", async () => {
      const v = await h!.get(id);
      return v.status === "paused" ? v : undefined;
    });
    expect(view.task, "task two completed; three has not started").toBe("three");
    expect(view.leaseOwner, "a paused row holds no lease").toBeNull();
    expect(view.requested).toBeNull();
    expect(up.requests.map((r) => r.path)).toEqual(["/one", "/two"]);
    const lines = await h.logs(id);
    const events = lines.map((l) => l.event);
    expect(lines.find((l) => l.event === "instance.paused")).toMatchObject({
      level: "info",
      task: "three",
      message: 'paused at the boundary of task "three"',
    });
    expect(events.at(-1), "the boundary line comes after the advance's own lines").toBe("instance.paused");
    expect(events, "only the verb that was requested is logged at the boundary").not.toContain("instance.cancelled");
    await new Promise((r) => setTimeout(r, 100));
    expect(up.requests, "nothing runs while paused").toHaveLength(2);
  });

  it("lands a cancel requested while a chained advance is in flight, with no timer left", async () => {
    const { gate, id, h } = await secondCallInFlight();
    expect((await cancelTree(h.db, h.clock, id, "tester")).outcome).toBe("cancelling");
    gate.releaseOne();
    const view = await until("the cancel to land", async () => {
      const v = await h!.get(id);
      return v.status === "cancelled" ? v : undefined;
    });
    expect(view.wakeAt, "cancelled is terminal: no wake time").toBeNull();
    expect(view.leaseOwner).toBeNull();
    const events = (await h.logs(id)).map((l) => l.event);
    expect(events).toContain("instance.cancelled");
    expect(events).not.toContain("instance.paused");
  });

  it("hands a kept lease back without an owner when the engine stops, so the next claim is not a reclaim", async () => {
    const gate = createGate();
    up = await startUpstream((_req, res) => gate.hold(res, { ok: true }));
    h = await openHarness({ pollMs: 10 });
    const id = await h.deployAndStart({
      name: "once",
      tasks: [
        { id: "one", action: { type: "fetch", method: "post", url: `${up.url}/one` } },
        { id: "two", only_once: true, action: { type: "fetch", method: "post", url: `${up.url}/two` } },
      ],
    });
    await until("the first call", async () => (gate.parked === 1 ? true : undefined));
    // Stop while the first fetch is in flight: its write keeps the lease, then must give it back.
    const stopping = h.engine.stop();
    gate.releaseOne();
    await stopping;
    const released = await h.get(id);
    expect(released.task).toBe("two");
    expect(released.status).toBe("running");
    expect(released.leaseOwner, "nothing ran under the kept lease: no owner may be recorded").toBeNull();
    expect(released.wakeAt! <= h.clock.now(), "the row is due at once for another replica").toBe(true);

    up.handle((_r, res) => json(res, 200, { ok: true }));
    // No pump of its own (pollMs 0): with one, it could claim the row before this tick does.
    const other = h.newEngine("worker-b", { pollMs: 0 });
    expect(await other.tick()).toBe(1);
    const view = await h.get(id);
    expect(view.status, "only_once task two ran normally: it had never started").toBe("completed");
    const events = (await h.logs(id)).map((l) => l.event);
    expect(events).not.toContain("lease.reclaimed");
  });
});

describe("/tick", () => {
  it("answers for one advance per instance and never chains into the next task", async () => {
    up = await startUpstream((_r, res) => json(res, 200, { ok: true }));
    h = await openHarness();
    const id = await h.deployAndStart(threeCalls(up.url));
    expect(await h.tick()).toBe(1);
    const view = await h.get(id);
    expect(view.task, "a tick runs one cycle: the instance checkpoints before task two").toBe("two");
    expect(view.leaseOwner, "a tick's write releases the lease").toBeNull();
    expect(up.requests).toHaveLength(1);
  });
});
