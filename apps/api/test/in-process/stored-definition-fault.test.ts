// A stored version the engine cannot compile (docs/limits.md#compiling-a-stored-definition):
// the compile runs in slices, yet every instance on it still fails at its first advance, before
// any task runs, with engine.definition and the first fault in task order. The row is written
// straight into the table: the checker refuses such a definition at registration.
import { afterAll, beforeAll, expect, it } from "vitest";
import { definitions } from "../../src/storage/schema/index.js";
import { TASKS_PER_SLICE } from "../../src/engine/advance/compiled-definition.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h?.close();
});

it("fails an instance on a stored definition that does not compile at its first advance, with the first fault in task order", async () => {
  const faulty = TASKS_PER_SLICE + 50;
  const tasks = Array.from({ length: TASKS_PER_SLICE * 3 }, (_, i) => ({
    id: `t${i}`,
    output: { n: i === faulty ? "$: (" : i === faulty + TASKS_PER_SLICE ? "$: )" : i },
  }));
  await h.db.insert(definitions).values({
    name: "uncompilable",
    version: 1,
    definition: JSON.stringify({ name: "uncompilable", tasks }),
    hash: "by-hand",
    raises: "[]",
    actor: null,
    createdAt: h.clock.now(),
  });
  const id = await h.start("uncompilable", undefined, 1);
  await h.tick();
  const view = await h.get(id);
  expect(view.status).toBe("failed");
  expect(view.task, "failed where it stood: no task ran").toBe("t0");
  expect(view.state.outputs).toEqual({});
  expect(view.errorCode).toBe("engine.definition");
  expect(view.errorMessage).toMatch(
    new RegExp(`^task "t0": engine\\.definition: tasks\\[${faulty}\\] \\("t${faulty}"\\)\\.output`),
  );
});
