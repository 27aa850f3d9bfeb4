import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askOnce } from "../../../test/support/definitions.js";
import { type Harness, heldWrite, openHarness } from "../../../test/support/engine-harness.js";
import { rowsOf } from "../../storage/db.js";
import { signalExternalTask } from "../external/signal.js";

// The arming advance reads the signal buffer before it parks; a signal buffered between that
// read and the park's write is delivered by the write itself (wait-rows.ts deliverLateSignals).
// The order is fixed with a held write, not raced.

let h: Harness;

beforeAll(async () => {
  h = await openHarness();
  await h.deploy(askOnce("late"));
});
afterAll(async () => {
  await h?.close();
});

const buffered = async (id: string) =>
  rowsOf<{ n: number | string }>(await h.db.execute(`SELECT count(*) AS n FROM signals WHERE instance_id = '${id}'`))[0]
    .n;

describe("a signal buffered while the arming advance runs", () => {
  it("is delivered by the park's own write, and the instance completes with it", async () => {
    const id = await h.start("late");
    const worker = heldWrite(h, "worker-arming", id);
    const ticking = worker.engine.tick();
    await worker.computed;
    const answer = await signalExternalTask(h.db, h.clock, id, "q", { result: { n: 7 } }, null);
    expect(answer, "the task was not parked yet, so the signal was buffered").toEqual({
      delivered: false,
      buffered: true,
    });
    worker.release();
    expect(await ticking, "the park landed").toBe(1);
    expect(Number(await buffered(id)), "the park's write took the buffered signal").toBe(0);
    const due = await h.get(id);
    expect(due.status).toBe("running");
    expect(due.leaseOwner, "no lease is kept over a delivered park").toBeNull();
    expect(due.wakeAt, "due at once").not.toBeNull();
    await h.tick();
    const view = await h.get(id);
    expect(view.status).toBe("completed");
    expect(view.output).toEqual({ n: 7 });
    const events = (await h.logs(id)).map((l) => l.event);
    expect(events.filter((e) => e === "external.buffered")).toHaveLength(1);
    expect(events.filter((e) => e === "external.resolved")).toHaveLength(1);
  });

  it("leaves a signal for another task buffered", async () => {
    const external = { type: "external", result_schema: { type: "object" } };
    await h.deploy({
      name: "late2",
      tasks: [
        { id: "q", action: external },
        { id: "r", action: external },
      ],
    });
    const id = await h.start("late2");
    const worker = heldWrite(h, "worker-arming-2", id);
    const ticking = worker.engine.tick();
    await worker.computed;
    await signalExternalTask(h.db, h.clock, id, "r", { result: {} }, null);
    worker.release();
    expect(await ticking).toBe(1);
    expect(Number(await buffered(id)), "kept for r's visit").toBe(1);
    const parked = await h.get(id);
    expect(parked.task).toBe("q");
    expect(parked.wakeAt, "q still waits: it has no timeout").toBeNull();
  });
});
