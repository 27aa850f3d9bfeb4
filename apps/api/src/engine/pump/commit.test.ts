import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, openHarness } from "../../../test/support/engine-harness.js";
import type { Db } from "../../storage/db.js";
import type { AdvanceResult } from "../advance/advance-types.js";
import { CHILDREN_PER_TURN, type ChildSpawn } from "../advance/tasks/child.js";
import type { LeasedRow } from "../leases.js";
import { writeAdvances } from "./commit.js";

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h?.close();
});

describe("an advance write of thousands of children", () => {
  it("is built over several turns of the event loop before its statement is sent", async () => {
    const count = CHILDREN_PER_TURN * 3;
    // A counter moved by a callback of every turn, read when the write first reaches the database.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    let reachedAt: number | undefined;
    const watched = new Proxy(h.db, {
      get(target, prop, receiver) {
        if (reachedAt === undefined && (prop === "execute" || prop === "transaction" || prop === "$client"))
          reachedAt = turn;
        return Reflect.get(target, prop, receiver);
      },
    }) as Db;
    // The parent row does not exist: the write applies to nothing, which is all this needs.
    const claim: LeasedRow = {
      id: "parent",
      rootId: "parent",
      process: "fan",
      version: 1,
      task: "each",
      stateText: "{}",
      retryCount: 0,
      taskEpoch: 1,
      leaseEpoch: 1,
      reclaimedFrom: null,
      attempts: 1,
      parentId: null,
      parentTaskEpoch: 0,
      traceParent: null,
    };
    const spawns: ChildSpawn[] = Array.from({ length: count }, (_, i) => ({
      id: `child-${i}`,
      key: null,
      index: i,
      process: "leaf",
      version: 1,
      input: { i },
      firstTask: "done",
    }));
    const state = { input: {}, outputs: {}, _children: {} };
    const result: AdvanceResult = {
      status: "running",
      task: "each",
      taskEpoch: 1,
      retryCount: 0,
      state,
      written: new Set(),
      errorCode: null,
      errorMessage: null,
      wakeAt: null,
      phase: "children",
      logs: [],
      spawns,
    };
    setImmediate(tick);
    const [outcome] = await writeAdvances(watched, h.clock, 1 << 20, [{ claim, storedState: state, result }]);
    ticking = false;
    expect(outcome.applied).toBe(false);
    // Before the yields the whole write was built in the turn it began.
    expect(reachedAt, "turns passed while the children were built").toBeGreaterThanOrEqual(3);
  });
});
