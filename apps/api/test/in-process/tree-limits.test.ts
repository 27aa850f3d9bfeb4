// docs/limits.md#trees: a tree's depth and instance count are bounded (engine.spawn past them),
// and every operator verb works on a tree of the largest size allowed, on both databases
// (multi-row writes stay under PostgreSQL's 65,535 bind parameters).
import { stringifyJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import { until } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../src/limits.js";
import { cancelTree, pauseTree, resumeTree, retryTree } from "../../src/engine/index.js";
import { upgradeTree } from "../../src/engine/trees/upgrade.js";
import { rowsOf } from "../../src/storage/db.js";
import { freshInstanceRow, freshState } from "../../src/engine/starts/fresh-row.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

describe("--limit-children-per-visit", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness({ limits: { ...DEFAULT_LIMITS, childrenPerVisit: 3 } });
    await h.deploy({ name: "leaf", tasks: [{ id: "done" }] });
    await h.deploy({
      name: "fan",
      input_schema: { type: "object", properties: { items: { type: "array", items: { type: "object" } } } },
      tasks: [{ id: "each", action: { type: "child_list", name: "leaf", over: "$: input.items" } }],
    });
  });
  afterAll(async () => h?.close());

  it("lets a visit start as many children as the flag allows", async () => {
    const id = await h.start("fan", { items: [{}, {}, {}] });
    expect((await h.runToEnd(id, 1000, 50)).status).toBe("completed");
  });

  it("fails a visit that would start more with engine.spawn naming the flag, starting none", async () => {
    const id = await h.start("fan", { items: [{}, {}, {}, {}] });
    const root = await h.runToEnd(id, 1000, 50);
    expect(root.status).toBe("failed");
    expect(root.errorCode).toBe("engine.spawn");
    expect(root.errorMessage).toContain(
      'task "each" would start 4 children; at most 3 may be started by one task visit (--limit-children-per-visit)',
    );
    const rows = await h.db.execute(sql`SELECT count(*)::int AS n FROM instances WHERE root_id = ${id}`);
    expect(Number(rowsOf<{ n: number }>(rows)[0].n)).toBe(1);
  });
});

describe("tree limits at spawn", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness({ limits: { ...DEFAULT_LIMITS, treeDepth: 4, treeInstances: 20 } });
    await h.deploy({ name: "leaf", tasks: [{ id: "done", action: { type: "delay", for: "1s" } }] });
    // Spawns its own process once per level: a chain that would never end.
    await h.deploy({ name: "chain", tasks: [{ id: "more", action: { type: "child", name: "chain" } }] });
    // Spawns two of itself per level: doubles until something stops it.
    await h.deploy({
      name: "grow",
      tasks: [{ id: "more", action: { type: "child_list", name: "grow", over: "$: [{}, {}]" } }],
    });
    // A root of three "grow" branches: 1 + 3 + 2k instances, so a tree of exactly 20 is reachable.
    await h.deploy({
      name: "forest",
      tasks: [{ id: "plant", action: { type: "child_list", name: "grow", over: "$: [{}, {}, {}]" } }],
    });
    // A root of seven "pair" children, each starting two leaves: the eighth pair would pass 20.
    await h.deploy({
      name: "pair",
      tasks: [{ id: "two", action: { type: "child_list", name: "leaf", over: "$: [{}, {}]" } }],
    });
    await h.deploy({
      name: "pairs",
      tasks: [{ id: "seven", action: { type: "child_list", name: "pair", over: "$: [{}, {}, {}, {}, {}, {}, {}]" } }],
    });
    await h.deploy({
      name: "fan",
      input_schema: { type: "object", properties: { items: { type: "array", items: { type: "object" } } } },
      tasks: [{ id: "each", action: { type: "child_list", name: "leaf", over: "$: input.items" } }],
    });
  });
  afterAll(async () => h?.close());

  const treeCount = async (rootId: string) =>
    Number(
      rowsOf<{ n: number }>(
        await h.db.execute(sql`SELECT count(*)::int AS n FROM instances WHERE root_id = ${rootId}`),
      )[0].n,
    );

  it("fails the spawn past the tree depth with engine.spawn naming --limit-tree-depth", async () => {
    const id = await h.start("chain");
    const root = await h.runToEnd(id, 1000, 200);
    expect(root.status).toBe("failed");
    expect(root.errorCode).toBe("engine.spawn");
    expect(root.errorMessage).toContain("--limit-tree-depth");
    // The root and 4 levels below it; the deepest could not spawn.
    expect(await treeCount(id)).toBe(5);
  });

  it("refuses a spawn that would pass the tree's instance limit, starting nothing", async () => {
    const id = await h.start("fan", { items: Array.from({ length: 20 }, () => ({})) });
    const root = await h.runToEnd(id, 1000, 50);
    expect(root.status).toBe("failed");
    expect(root.errorCode).toBe("engine.spawn");
    expect(root.errorMessage).toContain("would make the tree 21 instances, more than the limit of 20");
    expect(root.errorMessage).toContain("--limit-tree-instances");
    expect(await treeCount(id)).toBe(1);
  });

  /** Ticks `engines` (all at once each round) until the root of `id` is settled, then a few rounds more. */
  async function settle(id: string, engines: Array<{ tick(): Promise<number> }>): Promise<string> {
    for (let i = 0; i < 500 && !["failed", "completed"].includes((await h.get(id)).status); i++) {
      h.clock.advance(1000);
      await Promise.all(engines.map((e) => e.tick()));
    }
    // The last branches still running try to spawn, and fail, after the root has failed.
    for (let i = 0; i < 20; i++) {
      h.clock.advance(1000);
      await Promise.all(engines.map((e) => e.tick()));
    }
    return (await h.get(id)).status;
  }

  it("stops a child_list that spawns its own process: the tree fails and stops growing", async () => {
    const id = await h.start("grow");
    expect(await settle(id, [h.engine])).toBe("failed");
    expect((await h.get(id)).errorCode).toBe("engine.spawn");
    const settled = await treeCount(id);
    // 1 + 2k instances: 19 is the largest such tree under the limit of 20.
    expect(settled).toBe(19);
    for (let i = 0; i < 5; i++) await h.tick(1000);
    expect(await treeCount(id), "nothing runs in a settled tree").toBe(settled);
    const live = rowsOf<{ n: number }>(
      await h.db.execute(
        sql`SELECT count(*)::int AS n FROM instances WHERE root_id = ${id} AND status NOT IN ('failed', 'cancelled', 'completed', 'raised')`,
      ),
    )[0].n;
    expect(Number(live)).toBe(0);
  });

  /**
   * Runs a fresh tree of `process` on engines with `slots` advances each, ticked together;
   * returns its final size and the root's tree_size.
   */
  async function growWith(process: string, slots: number, workers: string[]) {
    const engines = workers.map((w) => h.newEngine(w, { maxConcurrent: slots }));
    const id = await h.start(process);
    expect(await settle(id, engines)).toBe("failed");
    expect((await h.get(id)).errorCode).toBe("engine.spawn");
    const [root] = rowsOf<{ tree_size: number | string }>(
      await h.db.execute(sql`SELECT tree_size FROM instances WHERE id = ${id}`),
    );
    const [left] = rowsOf<{ n: number | string | null }>(
      await h.db.execute(sql`SELECT sum(reserved_children) AS n FROM instances WHERE root_id = ${id}`),
    );
    expect(Number(left.n), "every landed write cleared its reservation").toBe(0);
    return { size: await treeCount(id), treeSize: Number(root.tree_size) };
  }

  // The limit is exact (docs/limits.md#trees): every spawn reserves its children on the root row
  // before its write, so spawns in flight together see each other, and a refusal comes from an
  // exact count. A "forest" tree grows by 2 from 4, so it ends at exactly 20.
  it("reaches exactly the instance limit when spawns in a tree run one at a time", async () => {
    expect(await growWith("forest", 1, ["one-slot"])).toEqual({ size: 20, treeSize: 20 });
  });

  it("reaches exactly the instance limit, never past it, with three spawns in flight together", async () => {
    expect(await growWith("forest", 3, ["three-slots"])).toEqual({ size: 20, treeSize: 20 });
    expect((await growWith("grow", 3, ["three-slots-b"])).size).toBe(19);
  });

  it("two engines racing spawns in one tree reach exactly the limit and never pass it", async () => {
    expect(await growWith("forest", 3, ["race-a", "race-b"])).toEqual({ size: 20, treeSize: 20 });
  });

  it("spawns held in flight on one engine are seen by the other engine's spawns", async () => {
    const id = await h.start("pairs");
    await h.tick();
    expect(await treeCount(id), "the root and its seven pairs").toBe(8);
    // Engine A runs four pairs and holds their writes: their children are reserved, not rows.
    let arrived = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const a = h.newEngine(
      "held-a",
      { maxConcurrent: 4 },
      {
        beforeWrite: async () => {
          arrived++;
          await released;
        },
      },
    );
    const ticking = a.tick();
    await until("engine A's four spawns to reserve and reach their writes", () => (arrived === 4 ? true : undefined));
    // Engine B runs the other three against 8 rows: only two more pairs fit (8 + 4·2 + 2·2 = 20).
    const b = h.newEngine("held-b", { maxConcurrent: 4 });
    expect(await b.tick()).toBe(3);
    release();
    expect(await ticking).toBe(4);
    const pairs = rowsOf<{ status: string; error_code: string | null }>(
      await h.db.execute(sql`SELECT status, error_code FROM instances WHERE parent_id = ${id} ORDER BY id`),
    );
    expect(pairs.filter((p) => p.error_code === "engine.spawn")).toHaveLength(1);
    expect(await treeCount(id)).toBe(20);
  });
});

describe("every verb on the largest tree allowed", () => {
  const size = DEFAULT_LIMITS.treeInstances;
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness();
    const wide = {
      name: "wide",
      tasks: [{ id: "each", action: { type: "child_list", name: "wide", over: "$: []" } }],
    };
    await h.deploy(wide);
    await h.deploy(wide);
  });
  afterAll(async () => h?.close());

  /** A root waiting on size - 1 children of its own process, all running and none due. */
  async function seedTree(status: string): Promise<string> {
    const root = await h.start("wide", {}, 1);
    const now = h.clock.now();
    await h.db.execute(sql`
      UPDATE instances SET status = ${status}, phase = 'children', pending_children = ${size - 1}, wake_at = NULL
      WHERE id = ${root}`);
    // One fresh child row (the one builder, engine/starts/fresh-row.ts), copied in SQL with its id and key
    // per child: 10,000 rows in one statement. Seeded with `status` and not due.
    const child = freshInstanceRow({
      id: "",
      rootId: root,
      parentId: root,
      spawnTask: "each",
      parentTaskEpoch: 1,
      process: "wide",
      version: 1,
      task: "each",
      state: stringifyJson(freshState({})),
      now,
    });
    await h.db.execute(sql`
      INSERT INTO instances (id, root_id, parent_id, spawn_task, spawn_key, parent_task_epoch, process, version, status,
                             task, state, task_epoch, lease_epoch, wake_at, created_at, updated_at)
      SELECT ${root} || '-' || lpad(g::text, 6, '0'), ${child.rootId}, ${child.parentId}, ${child.spawnTask}, (g - 1)::text,
             ${child.parentTaskEpoch}::int, ${child.process}, ${child.version}::int, ${status}, ${child.task}, ${child.state},
             ${child.taskEpoch}::int, ${child.leaseEpoch}::int, NULL, ${child.createdAt}::bigint, ${child.updatedAt}::bigint
      FROM generate_series(1, ${size - 1}) AS g`);
    // Rows inserted past the engine: the root's tree_size counts them, as the spawns would have.
    await h.db.execute(sql`UPDATE instances SET tree_size = ${size} WHERE id = ${root}`);
    return root;
  }

  const logCount = async (rootId: string, event: string) =>
    Number(
      rowsOf<{ n: number }>(
        await h.db.execute(sql`SELECT count(*)::int AS n FROM logs WHERE root_id = ${rootId} AND event = ${event}`),
      )[0].n,
    );

  it(`pauses, resumes and cancels a tree of ${size} instances, logging each`, async () => {
    const root = await seedTree("running");
    expect(await pauseTree(h.db, h.clock, root, "token:op")).toEqual({
      outcome: "paused",
      status: "paused",
      instances: size,
    });
    expect(await logCount(root, "instance.paused")).toBe(size);
    expect(await resumeTree(h.db, h.clock, root, "token:op")).toEqual({
      outcome: "resumed",
      status: "running",
      instances: size,
    });
    expect(await cancelTree(h.db, h.clock, root, "token:op")).toEqual({
      outcome: "cancelled",
      status: "cancelled",
      instances: size,
    });
    expect(await logCount(root, "instance.cancelled")).toBe(size);
  }, 120_000);

  it(`retries a failed tree of ${size} instances`, async () => {
    const root = await seedTree("failed");
    const result = await retryTree(h.db, h.clock, root, "token:op", false);
    expect(result).toEqual({ outcome: "retried", status: "running", instances: size });
    expect(await logCount(root, "instance.retried")).toBe(size);
    await cancelTree(h.db, h.clock, root, "token:op");
  }, 120_000);

  it(`upgrades a tree of ${size} instances`, async () => {
    const root = await seedTree("running");
    const result = await upgradeTree(h.db, h.clock, root, 1, 2, "token:op", h.upgradeCheck());
    expect(result.upgraded).toBe(true);
    expect(result.moves?.length).toBe(size);
    expect(await logCount(root, "instance.upgraded")).toBe(size);
    await cancelTree(h.db, h.clock, root, "token:op");
  }, 120_000);
});
