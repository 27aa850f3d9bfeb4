// docs/limits.md#trees: a tree's depth and instance count are bounded (engine.spawn past them),
// and every operator verb works on a tree of the largest size allowed, on both databases
// (multi-row writes stay under PostgreSQL's 65,535 bind parameters).
import { stringifyJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../src/limits.js";
import { cancelTree, pauseTree, resumeTree, retryTree } from "../../src/engine/index.js";
import { upgradeTree } from "../../src/engine/trees/upgrade.js";
import { rowsOf } from "../../src/storage/db.js";
import { freshInstanceRow, freshState } from "../../src/engine/start.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

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

  it("stops a child_list that spawns its own process: the tree fails and stops growing", async () => {
    const id = await h.start("grow");
    const root = await h.runToEnd(id, 1000, 500);
    expect(root.status).toBe("failed");
    expect(root.errorCode).toBe("engine.spawn");
    const settled = await treeCount(id);
    // Spawns in flight together each count only the committed rows, so the tree can pass the
    // limit by the children of the spawns one tick runs at once (docs/limits.md#trees).
    expect(settled).toBeLessThanOrEqual(20 + 2 * h.config.maxConcurrent);
    for (let i = 0; i < 5; i++) await h.tick(1000);
    expect(await treeCount(id), "nothing runs in a settled tree").toBe(settled);
    const live = rowsOf<{ n: number }>(
      await h.db.execute(
        sql`SELECT count(*)::int AS n FROM instances WHERE root_id = ${id} AND status NOT IN ('failed', 'cancelled', 'completed', 'raised')`,
      ),
    )[0].n;
    expect(Number(live)).toBe(0);
  });

  /** Runs a fresh "grow" tree (2 children per spawn, limit 20) on an engine with `slots` advances at once. */
  async function growWith(slots: number, worker: string): Promise<number> {
    const engine = h.newEngine(worker, { maxConcurrent: slots });
    const id = await h.start("grow");
    for (let i = 0; i < 500 && (await h.get(id)).status !== "failed"; i++) await engine.tick();
    expect((await h.get(id)).errorCode).toBe("engine.spawn");
    // The last branches still running try to spawn, and fail, after the root has failed.
    for (let i = 0; i < 50; i++) await engine.tick();
    return treeCount(id);
  }

  // The documented bound (docs/limits.md#trees): a spawn passes the check only if the tree's
  // committed rows plus its own children fit, so k spawns in flight together end at most at
  // (limit - children) + k * children. A tick commits its writes before the next one claims.
  it("never passes the instance limit when spawns in a tree run one at a time", async () => {
    expect(await growWith(1, "one-slot")).toBeLessThanOrEqual(20);
  });

  it("passes the instance limit at most by the children of the spawns in flight together", async () => {
    const size = await growWith(3, "three-slots");
    expect(size).toBeLessThanOrEqual(20 - 2 + 3 * 2);
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
    // One fresh child row (the one builder, engine/start.ts), copied in SQL with its id and key
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
