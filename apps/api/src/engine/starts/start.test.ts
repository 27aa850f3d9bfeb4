import type { Json } from "@baton/expr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, openHarness, quietLog } from "../../../test/support/engine-harness.js";
import type { Services } from "../../services.js";
import { startInstance } from "./start.js";

// A start whose first advance needs no I/O is inserted already advanced (docs/instances.md
// "Starting"): these compare it with the two-step path (insert the fresh row, then the pump's
// advance writes a second version) on the same definitions.

const definitions = [
  {
    name: "routes",
    input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    tasks: [
      { id: "a", output: { doubled: "$: input.n * 2" } },
      { id: "b", switch: [{ case: "outputs.a.doubled > 3", goto: "next" }, { goto: "end" }] },
      { id: "c", output: "$: outputs.a.doubled + 1" },
    ],
    output: { total: "$: outputs.c" },
  },
  {
    name: "raises",
    tasks: [{ id: "r", switch: [{ raise: { code: "too_small", message: "n is too small" } }] }],
  },
  {
    name: "panics",
    tasks: [{ id: "p", switch: [{ panic: { code: "broken", message: "always" } }] }],
  },
  {
    name: "delays",
    tasks: [
      { id: "d", action: { type: "delay", for: "1h" } },
      { id: "e", output: 1 },
    ],
  },
  { name: "fetches", tasks: [{ id: "f", action: { type: "fetch", url: "http://127.0.0.1:9/x" } }] },
  { name: "asks", tasks: [{ id: "x", action: { type: "external" } }] },
  {
    name: "routes-then-fetches",
    tasks: [
      { id: "a", output: 1 },
      { id: "f", action: { type: "fetch", url: "http://127.0.0.1:9/x" } },
    ],
  },
];

let h: Harness;
/** The engine runs advances here (the pump is on): a start whose first advance is pure lands advanced. */
let oneStep: Services;
/** --poll 0: every start inserts the fresh row; harness.tick() runs its first advance as the pump does. */
let twoStep: Services;

beforeAll(async () => {
  h = await openHarness();
  for (const d of definitions) await h.deploy(d);
  const base = {
    db: h.db,
    database: h.database,
    dbKind: "pglite",
    clock: h.clock,
    log: quietLog,
    workerId: "worker-a",
  };
  const shared = { ...base, engine: h.engine, checker: h.checker } as Services;
  oneStep = { ...shared, config: { ...h.config, pollMs: 100 } };
  twoStep = { ...shared, config: { ...h.config, pollMs: 0 } };
});

afterAll(async () => {
  await h?.close();
});

const ISO_TIME = /\d{4}-\d\d-\d\dT[\d:.]+Z/g;

/**
 * What a start leaves stored, minus what only says when or under which lease it was written:
 * a timer's instants are kept relative to when its wait began (the two paths run the advance
 * some milliseconds apart on the real clock).
 */
async function stored(id: string) {
  const { leaseEpoch: _epoch, wakeAt, state, ...row } = await h.get(id);
  const since: number | undefined = state._wait?.since;
  const relative = (t: unknown) => (since === undefined || typeof t !== "number" ? t : t - since);
  if (state._wait !== undefined) state._wait = { ...state._wait, since: 0, deadline: relative(state._wait.deadline) };
  const lines = (await h.logs(id)).map(({ event, level, task, message, data }) => ({
    ...{ event, level, task, message: message.replace(ISO_TIME, "<time>") },
    data:
      data !== null && typeof data === "object" && "wake_at" in data
        ? { ...data, wake_at: relative(data.wake_at) }
        : data,
  }));
  return { row: { ...row, state, id: undefined, wakeAt: relative(wakeAt) }, lines };
}

describe("a start whose first advance needs no I/O", () => {
  for (const [process, status] of [
    ["routes", "completed"],
    ["raises", "raised"],
    ["panics", "failed"],
    ["delays", "running"],
  ] as const) {
    it(`${process}: answers "${status}" and stores exactly what the two-step path stores`, async () => {
      const input: Json = process === "routes" ? { n: 2 } : {};
      const one = await startInstance({ process, input }, "token:t1", oneStep);
      expect(one).toMatchObject({ process, version: 1, status, replayed: false });
      const two = await startInstance({ process, input }, "token:t1", twoStep);
      expect(two.status).toBe("running");
      expect((await h.get(two.id)).task).toBe(definitions.find((d) => d.name === process)!.tasks[0]!.id);
      await h.tick();
      const [a, b] = [await stored(one.id), await stored(two.id)];
      expect(a).toEqual(b);
      expect(a.row.status).toBe(status);
      expect(a.lines[0]).toMatchObject({ event: "instance.started", level: "info" });
      expect(a.lines.length).toBeGreaterThan(1);
    });
  }

  it("routes: the output, state and task are those of the end, with no lease taken", async () => {
    const { id } = await startInstance({ process: "routes", input: { n: 2 } }, null, oneStep);
    const row = await h.get(id);
    expect(row).toMatchObject({
      status: "completed",
      output: { total: 5 },
      leaseOwner: null,
      leaseEpoch: 0,
      wakeAt: null,
    });
    expect(row.state.outputs).toEqual({ a: { doubled: 4 }, c: 5 });
  });

  it("delays: parks on its timer, due to the pump at its wake time, unleased", async () => {
    const before = h.clock.now();
    const { id } = await startInstance({ process: "delays" }, null, oneStep);
    const row = await h.get(id);
    expect(row).toMatchObject({ status: "running", task: "d", leaseOwner: null });
    expect(row.wakeAt).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(await h.tick(3_600_000 + 1_000)).toBeGreaterThanOrEqual(1);
    expect(await h.get(id)).toMatchObject({ status: "completed", task: "e" });
  });
});

describe("a start whose first advance needs I/O or writes more than its row", () => {
  for (const process of ["fetches", "asks", "routes-then-fetches"]) {
    it(`${process}: inserts the fresh row, answers "running" and leaves the advance to the engine`, async () => {
      const { id, status } = await startInstance({ process }, null, oneStep);
      expect(status).toBe("running");
      const row = await h.get(id);
      expect(row).toMatchObject({
        status: "running",
        taskEpoch: 1,
        task: definitions.find((d) => d.name === process)!.tasks[0]!.id,
      });
      expect((await h.logs(id)).map((l) => l.event)).toEqual(["instance.started"]);
    });
  }
});

describe("an advanced start with an Idempotency-Key", () => {
  it("takes the key in its one statement: a retry answers the same instance as it stands, replayed", async () => {
    const first = await startInstance({ process: "routes", input: { n: 1 } }, "token:k", oneStep, "key-advanced");
    expect(first).toMatchObject({ status: "completed", replayed: false });
    const again = await startInstance({ process: "routes", input: { n: 1 } }, "token:k", oneStep, "key-advanced");
    expect(again).toEqual({ ...first, replayed: true });
    await expect(
      startInstance({ process: "routes", input: { n: 9 } }, "token:k", oneStep, "key-advanced"),
    ).rejects.toMatchObject({ kind: "conflict" });
  });
});
