import { until } from "@baton/testkit";
// Child tasks (docs/language.md#children): a parent spawns children with its advance's write, parks in
// phase `children`, the last child to settle wakes it, and its next advance collects them.
import { parseJson } from "@baton/expr";
import { eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { cancelTree, pauseTree, resumeTree, retryTree } from "../../src/engine/index.js";
import { rowsOf } from "../../src/storage/db.js";
import { instances } from "../../src/storage/schema/index.js";
import { type Harness, harnessWith, type InstanceView, openHarness } from "../support/engine-harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const double = {
  name: "double",
  input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
  tasks: [{ id: "calc", output: { twice: "$: input.n * 2" } }],
  output: { twice: "$: outputs.calc.twice" },
};

/** Waits a minute on a delay: a child still running while its siblings settle. */
const slow = { name: "slow", tasks: [{ id: "wait", action: { type: "delay", for: "1m" } }], output: { waited: true } };

const judge = {
  name: "judge",
  input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
  tasks: [
    {
      id: "check",
      switch: [
        { case: "input.n < 0", raise: { code: "negative", message: "n is below zero" } },
        { case: "input.n == 13", panic: { code: "unlucky", message: "thirteen" } },
        { goto: "end" },
      ],
    },
  ],
  output: { ok: "$: input.n" },
};

const TWICE = { type: "object", properties: { twice: { type: "integer" } }, required: ["twice"] };

/** Doubles every element of `ns` in a child_list of `double` and collects the results in order. */
const lister = {
  name: "lister",
  input_schema: { type: "object", properties: { ns: { type: "array", items: { type: "integer" } } }, required: ["ns"] },
  tasks: [
    {
      id: "each",
      action: { type: "child_list", name: "double", over: "$: map(input.ns, n => {n: n})", result_schema: TWICE },
    },
  ],
  output: { all: "$: map(outputs.each, o => o.twice)" },
};

interface Row {
  id: string;
  status: string;
  phase: string | null;
  parentId: string | null;
  rootId: string;
  spawnTask: string | null;
  spawnKey: string | null;
  pendingChildren: number;
  output: unknown;
  errorCode: string | null;
}

async function row(harness: Harness, id: string): Promise<Row> {
  const [r] = await harness.db.select().from(instances).where(eq(instances.id, id));
  return { ...r, output: r.output === null ? undefined : parseJson(r.output) } as unknown as Row;
}

async function childrenOf(harness: Harness, id: string): Promise<Row[]> {
  const rows = await harness.db
    .select()
    .from(instances)
    .where(eq(instances.parentId, id))
    .orderBy(instances.spawnKey, instances.id);
  return rows.map((r) => ({ ...r, output: r.output === null ? undefined : parseJson(r.output) }) as unknown as Row);
}

/** Ticks until every instance of the tree has settled (or `limit` ticks). */
async function settleTree(harness: Harness, rootId: string, limit = 40): Promise<void> {
  for (let i = 0; i < limit; i++) {
    const live = rowsOf<{ n: number }>(
      await harness.db.execute(
        sql`SELECT count(*)::int AS n FROM instances WHERE root_id = ${rootId} AND status IN ('running', 'failing')`,
      ),
    );
    if (Number(live[0].n) === 0) return;
    await harness.tick();
  }
}

/** Starts `process` and ticks its tree until it has settled; the root's view. */
async function runTree(
  harness: Harness,
  process: string,
  input?: Parameters<Harness["start"]>[1],
): Promise<InstanceView> {
  const id = await harness.start(process, input);
  await settleTree(harness, id);
  return harness.get(id);
}

/** Waits (real time, the pump running) until the instance leaves `running`. */
function settledByPump(harness: Harness, id: string, what: string): Promise<InstanceView> {
  return until(
    what,
    async () => {
      const view = await harness.get(id);
      return view.status === "running" ? undefined : view;
    },
    20_000,
  );
}

describe("child", () => {
  it("spawns one child, parks in phase children, and continues with the child's output", async () => {
    h = await harnessWith(double, {
      name: "parent",
      tasks: [
        { id: "spawn", action: { type: "child", name: "double", input: { n: 21 }, result_schema: TWICE } },
        { id: "after", output: { got: "$: outputs.spawn.twice" } },
      ],
      output: { got: "$: outputs.after.got" },
    });
    const id = await h.start("parent");
    expect(await h.tick(), "the spawn advance").toBe(1);
    const parked = await row(h, id);
    expect(parked.status).toBe("running");
    expect(parked.phase, "the parent waits for its children").toBe("children");
    expect(parked.pendingChildren).toBe(1);
    const [child] = await childrenOf(h, id);
    expect(child, "the child row is written with the parent's advance").toBeDefined();
    expect(child).toMatchObject({ parentId: id, rootId: id, spawnTask: "spawn", status: "running" });
    expect((await h.get(id)).state._children, "state._children maps the task to the child id").toEqual({
      spawn: child.id,
    });

    await settleTree(h, id);
    const done = await h.get(id);
    expect(done.status).toBe("completed");
    expect(done.output).toEqual({ got: 42 });
    expect((await row(h, id)).phase).toBeNull();
    expect((await row(h, child.id)).output).toEqual({ twice: 42 });
    const events = (await h.logs(child.id)).map((l) => l.event);
    expect(events[0], "the child's first line says who started it").toBe("instance.started");
  });

  it("fails the parent with engine.input, naming the field, when the child's input_schema refuses the input", async () => {
    h = await harnessWith(double, {
      name: "bad_input",
      tasks: [{ id: "spawn", action: { type: "child", name: "double", input: { n: "x" } } }],
    });
    const id = await h.start("bad_input");
    await h.tick();
    const view = await h.get(id);
    expect(view.status).toBe("failed");
    expect(view.errorCode).toBe("engine.input");
    expect(view.errorMessage).toContain('process "double" version 1');
    expect(view.errorMessage).toContain("n");
    expect(await childrenOf(h, id), "nothing is spawned for a refused input").toHaveLength(0);
  });
});

describe("child_map and child_list", () => {
  it("collects a child_map as an object keyed like its children", async () => {
    h = await harnessWith(double, {
      name: "mapper",
      tasks: [
        {
          id: "both",
          action: {
            type: "child_map",
            children: {
              a: { name: "double", input: { n: 1 }, result_schema: TWICE },
              b: { name: "double", input: { n: 5 }, result_schema: TWICE },
            },
          },
        },
      ],
      output: { a: "$: outputs.both.a.twice", b: "$: outputs.both.b.twice" },
    });
    const view = await runTree(h, "mapper");
    const id = view.id;
    expect(view.status).toBe("completed");
    expect(view.output).toEqual({ a: 2, b: 10 });
    expect(Object.keys(view.state._children.both).sort()).toEqual(["a", "b"]);
    expect((await childrenOf(h, id)).map((c) => c.spawnKey)).toEqual(["a", "b"]);
  });

  it("collects a child_list as the array of outputs in element order", async () => {
    h = await harnessWith(double, lister);
    const view = await runTree(h, "lister", { ns: [3, 1, 4, 1, 5] });
    expect(view.status, view.errorMessage ?? "").toBe("completed");
    expect(view.output).toEqual({ all: [6, 2, 8, 2, 10] });
    expect(view.state._children.each).toHaveLength(5);
  });

  it("continues at once past an empty child_list, spawning nothing", async () => {
    h = await harnessWith(double, {
      name: "empty",
      tasks: [{ id: "each", action: { type: "child_list", name: "double", over: "$: []" } }],
      output: { all: "$: outputs.each" },
    });
    const id = await h.start("empty");
    expect(await h.tick()).toBe(1);
    const view = await h.get(id);
    expect(view.status).toBe("completed");
    expect(view.output).toEqual({ all: [] });
    expect(await childrenOf(h, id)).toHaveLength(0);
  });
});

describe("children that do not complete", () => {
  const catcher = {
    name: "catcher",
    input_schema: {
      type: "object",
      properties: { ns: { type: "array", items: { type: "integer" } } },
      required: ["ns"],
    },
    tasks: [
      {
        id: "each",
        action: { type: "child_list", name: "judge", over: "$: map(input.ns, n => {n: n})" },
        on_error: [{ code: "negative", goto: "$handled" }],
      },
      { id: "handled", output: { code: "$: error.code", index: "$: error.child_index" }, switch: [{ goto: "end" }] },
    ],
    output: { handled: "$: outputs.handled" },
  };

  it("routes a raised child through the parent task's on_error with error.child_index", async () => {
    h = await harnessWith(judge, catcher);
    const view = await runTree(h, "catcher", { ns: [1, -4, 2] });
    expect(view.status, view.errorMessage ?? "").toBe("completed");
    expect(view.output).toEqual({ handled: { code: "negative", index: 1 } });
  });

  it("fails the parent with a failed child's code, which on_error never catches", async () => {
    h = await harnessWith(judge, {
      ...catcher,
      tasks: [{ ...catcher.tasks[0], on_error: [{ code: "unlucky", goto: "$handled" }] }, catcher.tasks[1]],
    });
    const view = await runTree(h, "catcher", { ns: [13, 2] });
    expect(view.status).toBe("failed");
    expect(view.errorCode, "the ancestors fail with the child's code").toBe("unlucky");
    expect(view.errorMessage).toContain("child [0]");
  });

  it("fails the parent with a raised child's code when no rule matches it", async () => {
    h = await harnessWith(judge, {
      name: "plain",
      tasks: [{ id: "one", action: { type: "child", name: "judge", input: { n: -1 } } }],
    });
    const view = await runTree(h, "plain");
    expect(view.status).toBe("failed");
    expect(view.errorCode).toBe("negative");
  });

  it("shows a parent as failing while a failed child's siblings still run, then failed", async () => {
    h = await harnessWith(judge, slow, {
      name: "mixed",
      tasks: [
        {
          id: "both",
          action: { type: "child_map", children: { bad: { name: "judge", input: { n: 13 } }, slow: { name: "slow" } } },
        },
      ],
    });
    const id = await h.start("mixed");
    await h.tick(); // spawn
    await h.tick(); // bad fails, slow parks on its delay
    await h.tick();
    expect((await row(h, id)).status, "a child failed; its sibling still waits").toBe("failing");
    await h.tick(61_000); // slow wakes and completes
    await settleTree(h, id);
    const view = await h.get(id);
    expect(view.status).toBe("failed");
    expect(view.errorCode).toBe("unlucky");
  });

  it("fails the task with output.invalid when the children's output does not match result_schema", async () => {
    h = await harnessWith(double, {
      name: "strict",
      tasks: [
        {
          id: "one",
          action: {
            type: "child",
            name: "double",
            input: { n: 2 },
            result_schema: { type: "object", properties: { twice: { type: "string" } }, required: ["twice"] },
          },
        },
      ],
    });
    const view = await runTree(h, "strict");
    expect(view.status).toBe("failed");
    expect(view.errorCode).toBe("output.invalid");
  });
});

describe("trees under operator verbs", () => {
  it("pauses and resumes the whole tree, children included", async () => {
    h = await harnessWith(slow, {
      name: "fan",
      tasks: [{ id: "each", action: { type: "child_list", name: "slow", over: "$: [{}, {}, {}]" } }],
    });
    const id = await h.start("fan");
    await h.tick();
    await h.tick(); // the children park on their delays
    const paused = await pauseTree(h.db, h.clock, id, "tester");
    expect(paused.instances, "the root and its three children").toBe(4);
    for (const c of await childrenOf(h, id)) expect(c.status).toBe("paused");
    expect(await h.tick(120_000), "nothing runs while paused").toBe(0);
    await resumeTree(h.db, h.clock, id, "tester");
    await settleTree(h, id);
    expect((await h.get(id)).status).toBe("completed");
  });

  it("cancels the whole tree", async () => {
    h = await harnessWith(slow, {
      name: "fan",
      tasks: [{ id: "each", action: { type: "child_list", name: "slow", over: "$: [{}, {}]" } }],
    });
    const id = await h.start("fan");
    await h.tick();
    const cancelled = await cancelTree(h.db, h.clock, id, "tester");
    expect(cancelled.instances).toBe(3);
    for (const c of await childrenOf(h, id)) expect(c.status).toBe("cancelled");
    expect((await h.get(id)).status).toBe("cancelled");
  });

  it("retries a tree where it died: the failed child runs again, completed siblings are kept, the parent collects", async () => {
    const { json, startUpstream } = await import("@baton/testkit");
    let flaky = 0;
    const up = await startUpstream((req, res) => {
      if (req.path === "/flaky" && flaky++ === 0) return json(res, 500, { error: "first call fails" });
      json(res, 200, { ok: true, path: req.path });
    });
    try {
      h = await openHarness();
      const harness = h;
      await harness.deploy({
        name: "charge",
        input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        tasks: [{ id: "call", action: { type: "fetch", method: "post", url: `${up.url}/\${ input.path }` } }],
        output: { path: "$: input.path" },
      });
      const PATH = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
      const id = await harness.deployAndStart({
        name: "pair",
        tasks: [
          {
            id: "both",
            action: {
              type: "child_map",
              children: {
                a: { name: "charge", input: { path: "ok" }, result_schema: PATH },
                b: { name: "charge", input: { path: "flaky" }, result_schema: PATH },
              },
            },
          },
        ],
        output: { a: "$: outputs.both.a.path", b: "$: outputs.both.b.path" },
      });
      await settleTree(harness, id);
      const failed = await harness.get(id);
      expect(failed.status).toBe("failed");
      expect(failed.errorCode).toBe("http.500");
      const [a, b] = await childrenOf(harness, id);
      expect([a.status, b.status]).toEqual(["completed", "failed"]);

      const retried = await retryTree(harness.db, harness.clock, id, "tester", false);
      expect(retried, "the failed child and the parent that failed with it").toMatchObject({
        outcome: "retried",
        instances: 2,
      });
      const waiting = await row(harness, id);
      expect(waiting.status).toBe("running");
      expect(waiting.phase, "the parent waits again for the revived child").toBe("children");
      expect(waiting.pendingChildren).toBe(1);
      expect((await harness.get(b.id)).taskEpoch, "the child's task gets a new visit").toBe(2);

      await settleTree(harness, id);
      const done = await harness.get(id);
      expect(done.status, done.errorMessage ?? "").toBe("completed");
      expect(done.output).toEqual({ a: "ok", b: "flaky" });
      expect(
        (await childrenOf(harness, id)).map((c) => c.id),
        "no new children: the same two",
      ).toEqual([a.id, b.id]);
      expect(
        up.requests.filter((r) => r.path === "/ok"),
        "the completed sibling did not run again",
      ).toHaveLength(1);
      expect(up.requests.filter((r) => r.path === "/flaky")).toHaveLength(2);
      expect((await harness.logs(b.id)).map((l) => l.event)).toContain("instance.retried");
    } finally {
      await up.close();
    }
  });

  it("refuses to retry a tree whose child died on an only_once task unless forced, naming the child", async () => {
    const { json, startUpstream } = await import("@baton/testkit");
    const up = await startUpstream((_req, res) =>
      json(res, 500, { error: "the payment may or may not have gone through" }),
    );
    h = await harnessWith(
      {
        name: "once",
        tasks: [{ id: "pay", only_once: true, action: { type: "fetch", url: `${up.url}/pay` } }],
      },
      { name: "holder", tasks: [{ id: "kid", action: { type: "child", name: "once" } }] },
    );
    const id = await h.start("holder");
    await settleTree(h, id);
    expect((await h.get(id)).status).toBe("failed");
    const [child] = await childrenOf(h, id);
    const refused = await retryTree(h.db, h.clock, id, "tester", false).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(refused?.message).toContain(child.id);
    expect(refused?.message).toContain("force=true");
    expect((await h.get(id)).status, "a refused retry changes nothing").toBe("failed");
    expect((await retryTree(h.db, h.clock, id, "tester", true)).instances).toBe(2);
    await up.close();
  });
});

describe("siblings settling at once", () => {
  it("wakes the parent exactly once when many children settle concurrently on two engines", async () => {
    const { json, startUpstream } = await import("@baton/testkit");
    // Answers after 0–9 ms, so the children's settling writes interleave across both engines.
    const up = await startUpstream((_req, res) => {
      setTimeout(() => json(res, 200, { ok: true }), Math.floor(Math.random() * 10));
    });
    try {
      h = await openHarness({ pollMs: 5, maxConcurrent: 16 });
      h.newEngine("worker-b", { pollMs: 5, maxConcurrent: 16 });
      await h.deploy({
        name: "call",
        input_schema: { type: "object", properties: { i: { type: "integer" } }, required: ["i"] },
        tasks: [{ id: "go", action: { type: "fetch", method: "post", url: `${up.url}/go` } }],
        output: { i: "$: input.i" },
      });
      const id = await h.deployAndStart({
        name: "fanout",
        tasks: [
          {
            id: "each",
            action: {
              type: "child_list",
              name: "call",
              over: "$: map([0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39], i => {i: i})",
              result_schema: { type: "object", properties: { i: { type: "integer" } }, required: ["i"] },
            },
          },
        ],
        output: { is: "$: map(outputs.each, o => o.i)" },
      });
      const harness = h;
      const view = await settledByPump(harness, id, "the parent to be woken once its last child settles");
      expect(view.status, view.errorMessage ?? "").toBe("completed");
      expect(view.output).toEqual({ is: Array.from({ length: 40 }, (_, i) => i) });
      expect((await row(harness, id)).pendingChildren, "every settling child decremented the counter once").toBe(0);
      const events = (await harness.logs(id)).map((l) => l.event);
      expect(
        events.filter((e) => e === "task.completed"),
        "the parent collected exactly once",
      ).toHaveLength(1);
      const children = await childrenOf(harness, id);
      expect(children).toHaveLength(40);
      expect(up.requests, "no child was advanced twice").toHaveLength(40);
      const workers = new Set<string>();
      for (const c of children) {
        const started = (await harness.logs(c.id)).filter((l) => l.event === "task.started");
        expect(started).toHaveLength(1);
        workers.add(String((started[0].data as { worker?: string }).worker));
      }
      expect(workers.size, "both engines advanced children").toBe(2);
    } finally {
      await up.close();
    }
  });
});

describe("upgrade of a tree waiting on children", () => {
  it("moves the parked parent to a compatible version; it collects its children there", async () => {
    const { upgradeTree } = await import("../../src/engine/trees/upgrade.js");
    h = await harnessWith(slow);
    const WAITED = { type: "object", properties: { waited: { type: "boolean" } }, required: ["waited"] };
    const v1 = {
      name: "holder",
      tasks: [{ id: "kids", action: { type: "child", name: "slow", result_schema: WAITED } }],
      output: { v: 1 },
    };
    const id = await h.deployAndStart(v1);
    await h.tick(); // spawn
    await h.tick(); // the child parks on its delay
    expect((await row(h, id)).phase).toBe("children");
    await h.deploy({ ...v1, output: { v: 2, waited: "$: outputs.kids.waited" } });
    const moved = await upgradeTree(h.db, h.clock, id, 1, 2, "tester", h.upgradeCheck());
    expect(
      moved.moves?.map((m) => m.instance_id),
      "only the parent runs holder; the child runs slow",
    ).toEqual([id]);
    await h.tick(61_000);
    await settleTree(h, id);
    const view = await h.get(id);
    expect(view.status).toBe("completed");
    expect(view.output, "collected and completed on version 2").toEqual({ v: 2, waited: true });
  });
});

describe("the pump and trees", () => {
  it("runs spawned children and wakes their parent without waiting for a poll", async () => {
    // A poll this long never fires within the test: only the engine's own wakes move the tree.
    h = await openHarness({ pollMs: 600_000 });
    await h.deploy(double);
    const id = await h.deployAndStart(lister, { ns: [1, 2, 3] });
    h.engine.wake();
    const view = await settledByPump(
      h,
      id,
      "the children and then the parent to be claimed on the engine's wakes, not on a poll",
    );
    expect(view.status).toBe("completed");
    expect(view.output).toEqual({ all: [2, 4, 6] });
  });
});

describe("spawn limits", () => {
  it("fails the parent with engine.spawn, starting nothing, when a child_list would start more than 10,000 children", async () => {
    h = await harnessWith(double, {
      name: "huge",
      input_schema: {
        type: "object",
        properties: { ns: { type: "array", items: { type: "integer" } } },
        required: ["ns"],
      },
      tasks: [{ id: "each", action: { type: "child_list", name: "double", over: "$: map(input.ns, n => {n: n})" } }],
    });
    const view = await runTree(h, "huge", { ns: Array.from({ length: 10_001 }, (_, i) => i) });
    expect(view.status).toBe("failed");
    expect(view.errorCode).toBe("engine.spawn");
    expect(view.errorMessage).toContain("10001 children; at most 10000");
    expect(await childrenOf(h, view.id)).toHaveLength(0);
  });
});
