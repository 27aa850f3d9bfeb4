// A pause or cancel requested while a worker holds the lease lands at that worker's task
// boundary (lifecycle-verbs.test.ts). Here the worker dies first: the request must still land,
// by the next claim round of any replica once the lease has expired (engine finalise).
import { createGate, json, startUpstream, type Upstream } from "@baton/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { cancelTree, pauseTree, resumeTree } from "../../src/engine/trees/lifecycle.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness | undefined;
let up: Upstream | undefined;
afterEach(async () => {
  await up?.close();
  await h?.close();
  up = undefined;
  h = undefined;
});

describe("pause and cancel of a tree whose worker died mid-task", () => {
  it("land as paused and cancelled once the lease expires, and the paused one resumes as a reclaim", async () => {
    // The dying worker's two calls are parked and never released; every later call is answered at once.
    const gate = createGate();
    let toPark = 2;
    let answered = 0;
    const harness = await openHarness();
    h = harness;
    const upstream = await startUpstream((_req, res) => {
      if (toPark > 0) {
        toPark--;
        return gate.hold(res);
      }
      answered++;
      json(res, 200, { ok: true });
    });
    up = upstream;
    await harness.deploy({
      name: "two",
      tasks: [
        { id: "first", action: { type: "fetch", url: `${upstream.url}/one` } },
        { id: "second", action: { type: "fetch", url: `${upstream.url}/two` } },
      ],
    });
    const toPause = await harness.start("two");
    const toCancel = await harness.start("two");
    const dying = harness.newEngine("worker-dying");
    const stuck = dying.tick();
    await gate.whenParked(2);

    expect((await pauseTree(harness.db, harness.clock, toPause, "token:op")).outcome).toBe("pausing");
    expect((await cancelTree(harness.db, harness.clock, toCancel, "token:op")).outcome).toBe("cancelling");
    // Stopping gives up on the advances and expires their leases, as a crash does after 10 s.
    await dying.stop();
    expect(await stuck, "nothing of the dead worker's round landed").toBe(0);

    expect(await harness.tick(), "nothing is claimable: both rows are stopping").toBe(0);
    const paused = await harness.get(toPause);
    expect(paused.status, "the pause lands although no worker reached the boundary").toBe("paused");
    expect(paused.task, "it stopped where it was").toBe("first");
    expect(paused.requested).toBeNull();
    expect(paused.leaseOwner, "the dead owner is kept: the next claim must treat the call as possibly made").toBe(
      "worker-dying",
    );
    const cancelled = await harness.get(toCancel);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.wakeAt, "cancelled is terminal: no wake time").toBeNull();
    for (const [id, status] of [
      [toPause, "paused"],
      [toCancel, "cancelled"],
    ] as const) {
      const line = (await harness.logs(id)).find((l) => l.event === `instance.${status}`);
      expect(line, `instance.${status} is logged for ${id}`).toMatchObject({
        level: "info",
        task: "first",
        message: `${status}: the worker that held the lease stopped before the task boundary`,
      });
    }

    expect((await resumeTree(harness.db, harness.clock, toPause, "token:op")).status).toBe("running");
    const finished = await harness.runToEnd(toPause);
    expect(finished.status).toBe("completed");
    expect(
      (await harness.logs(toPause)).map((l) => l.event),
      "the resumed advance knows the first call may have run",
    ).toContain("lease.reclaimed");
    expect(answered, "first and second of the resumed instance; nothing for the cancelled one").toBe(2);
    expect((await harness.get(toCancel)).status).toBe("cancelled");
  });
});
