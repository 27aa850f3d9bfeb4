import { stringifyJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, openHarness } from "../../../test/support/engine-harness.js";
import { rowsOf } from "../../storage/db.js";
import { newId } from "../../storage/ids.js";
import { instances } from "../../storage/schema/index.js";
import { freshInstanceRow, freshState } from "../starts/fresh-row.js";
import { AdvanceAbandoned } from "../advance/abandoned.js";
import { TaskFailure } from "../advance/task-failure.js";
import { childEnvironment, SpawnerFenced } from "../pump/child-environment.js";
import { createDefinitionCache } from "../pump/compiled-cache.js";
import { reserveInTree, type Spawner } from "./reservation.js";
import { newReservationQueues, reserveInBatch } from "./reservation-batch.js";

// docs/limits.md#trees: the reservation statement and the exact recount, on the database
// (PGlite, or PostgreSQL with DATABASE_URL). Rows are seeded as the engine leaves them: a root
// whose tree_size counts its rows, children leased at a lease epoch as a claim leaves them.

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => h?.close());

const limits = { maxDepth: 4, maxInstances: 10 };

/** A root and `spawners` children, each running and leased at lease epoch 1; tree_size = their count. */
async function seedTree(spawners: number): Promise<{ root: string; children: Spawner[] }> {
  const now = h.clock.now();
  const state = stringifyJson(freshState({}));
  const root = newId(now);
  await h.db.insert(instances).values(freshInstanceRow({ id: root, process: "p", version: 1, task: "t", state, now }));
  const children: Spawner[] = [];
  for (let i = 0; i < spawners; i++) {
    const id = newId(now);
    await h.db
      .insert(instances)
      .values(freshInstanceRow({ id, rootId: root, parentId: root, process: "p", version: 1, task: "t", state, now }));
    children.push({ id, rootId: root, leaseEpoch: 1 });
  }
  await h.db.execute(sql`
    UPDATE instances SET lease_owner = 'w', lease_epoch = 1, lease_expires_at = ${now + 60_000}
    WHERE root_id = ${root}`);
  await h.db.execute(sql`UPDATE instances SET tree_size = ${spawners + 1} WHERE id = ${root}`);
  return { root, children };
}

async function rowOf(id: string) {
  const [r] = rowsOf<{ tree_size: unknown; reserved_children: unknown; reserved_epoch: unknown }>(
    await h.db.execute(sql`SELECT tree_size, reserved_children, reserved_epoch FROM instances WHERE id = ${id}`),
  );
  return {
    treeSize: r.tree_size === null ? null : Number(r.tree_size),
    reserved: Number(r.reserved_children),
    epoch: r.reserved_epoch === null ? null : Number(r.reserved_epoch),
  };
}

/** What a claim does to a row: a new lease epoch (the old holder's write and reservation are fenced out). */
const reclaim = (id: string) => h.db.execute(sql`UPDATE instances SET lease_epoch = lease_epoch + 1 WHERE id = ${id}`);

describe("reserving room in a tree", () => {
  it("moves the root's tree_size and the spawner's reservation together, accumulating within one lease epoch", async () => {
    const { root, children } = await seedTree(1);
    const [s] = children;
    expect(await reserveInTree(h.db, s, 2, limits, 1)).toEqual({ outcome: "reserved", depth: 1 });
    expect(await reserveInTree(h.db, s, 1, limits, 1)).toEqual({ outcome: "reserved", depth: 1 });
    expect((await rowOf(root)).treeSize).toBe(5);
    expect(await rowOf(s.id)).toMatchObject({ reserved: 3, epoch: 1 });
  });

  it("reserves on the root's own row when the root spawns", async () => {
    const { root } = await seedTree(0);
    expect(await reserveInTree(h.db, { id: root, rootId: root, leaseEpoch: 1 }, 3, limits, 0)).toEqual({
      outcome: "reserved",
      depth: 0,
    });
    expect(await rowOf(root)).toEqual({ treeSize: 4, reserved: 3, epoch: 1 });
  });

  it("refuses a stale worker's reservation (its lease epoch moved), changing nothing", async () => {
    const { root, children } = await seedTree(1);
    const [s] = children;
    await reclaim(s.id);
    expect(await reserveInTree(h.db, s, 2, limits, 1)).toEqual({ outcome: "fenced" });
    expect((await rowOf(root)).treeSize).toBe(2);
    expect(await rowOf(s.id)).toMatchObject({ reserved: 0, epoch: null });
  });

  it("drops the spawner's own stale reservation when it reserves under a new lease epoch: never counted twice", async () => {
    const { root, children } = await seedTree(1);
    const [s] = children;
    await reserveInTree(h.db, s, 3, limits, 1);
    expect((await rowOf(root)).treeSize).toBe(5);
    // The lease was reclaimed (a stalled database, a killed worker): the new holder runs the advance again.
    await reclaim(s.id);
    expect(await reserveInTree(h.db, { ...s, leaseEpoch: 2 }, 3, limits, 1)).toMatchObject({ outcome: "reserved" });
    expect((await rowOf(root)).treeSize).toBe(5);
    expect(await rowOf(s.id)).toMatchObject({ reserved: 3, epoch: 2 });
  });

  it("does not let a stale reservation keep the tree from reaching exactly the limit", async () => {
    const { root, children } = await seedTree(3);
    const [a, b, c] = children;
    await reserveInTree(h.db, a, 4, limits, 1);
    expect((await rowOf(root)).treeSize).toBe(8);
    // A's lease moves on and its new holder does not spawn: its 4 will never be rows.
    await reclaim(a.id);
    // 8 + 5 > 10 on the upper bound; the exact count is 4 rows, so 5 fit.
    expect(await reserveInTree(h.db, b, 5, limits, 1)).toMatchObject({ outcome: "reserved" });
    expect((await rowOf(root)).treeSize).toBe(9);
    expect(await rowOf(a.id), "the stale reservation is dropped by the recount").toMatchObject({ reserved: 0 });
    expect(await reserveInTree(h.db, c, 1, limits, 1)).toMatchObject({ outcome: "reserved" });
    expect((await rowOf(root)).treeSize).toBe(10);
    expect(await reserveInTree(h.db, c, 1, limits, 1)).toEqual({ outcome: "full", depth: 1, size: 10 });
  });

  it("refuses from the exact count, which holds the live reservations of other spawners", async () => {
    const { root, children } = await seedTree(2);
    const [a, b] = children;
    await reserveInTree(h.db, a, 4, limits, 1);
    // 3 rows + A's 4 live = 7; 7 + 4 > 10.
    expect(await reserveInTree(h.db, b, 4, limits, 1)).toEqual({ outcome: "full", depth: 1, size: 7 });
    expect((await rowOf(root)).treeSize).toBe(7);
    expect(await rowOf(a.id)).toMatchObject({ reserved: 4, epoch: 1 });
    expect(await rowOf(b.id)).toMatchObject({ reserved: 0 });
  });

  it("counts a reservation of a paused spawner as live (resume keeps the epoch) and of a cancelled one as stale", async () => {
    const { root, children } = await seedTree(2);
    const [a, b] = children;
    await reserveInTree(h.db, a, 3, limits, 1);
    await h.db.execute(sql`UPDATE instances SET status = 'paused' WHERE id = ${a.id}`);
    expect(await reserveInTree(h.db, b, 5, limits, 1)).toEqual({ outcome: "full", depth: 1, size: 6 });
    await h.db.execute(sql`UPDATE instances SET status = 'cancelled' WHERE id = ${a.id}`);
    expect(await reserveInTree(h.db, b, 5, limits, 1)).toMatchObject({ outcome: "reserved" });
    expect((await rowOf(root)).treeSize).toBe(8);
  });

  it("walks up to learn an unknown depth, and refuses a spawn past the depth limit without reserving", async () => {
    const { root, children } = await seedTree(1);
    const [s] = children;
    expect(await reserveInTree(h.db, s, 1, { maxDepth: 1, maxInstances: 10 }, undefined)).toEqual({
      outcome: "too_deep",
      depth: 1,
    });
    expect((await rowOf(root)).treeSize).toBe(2);
    expect(await reserveInTree(h.db, s, 1, limits, undefined)).toEqual({ outcome: "reserved", depth: 1 });
  });
});

describe("reserveChildren (child-environment.ts) on a reservation's outcome", () => {
  const tree = {
    maxDepth: 4,
    maxInstances: 10,
    depthFlag: "--limit-tree-depth",
    instancesFlag: "--limit-tree-instances",
  };
  const environmentOf = (s: Spawner) =>
    childEnvironment(h.db, h.clock, createDefinitionCache(h.db), { ...s, process: "p", version: 1 }, tree);

  it("fails the spawn with engine.spawn naming the exact size and the flag when the children do not fit", async () => {
    const { children } = await seedTree(2);
    await environmentOf(children[0]).reserveChildren("more", 4);
    const refused = environmentOf(children[1]).reserveChildren("more", 4);
    await expect(refused).rejects.toBeInstanceOf(TaskFailure);
    await expect(refused).rejects.toMatchObject({
      code: "engine.spawn",
      message:
        'task "more": starting 4 children would make the tree 11 instances, more than the limit of 10 instances per tree (--limit-tree-instances)',
    });
  });

  it("drops the advance of a stale worker (SpawnerFenced, an AdvanceAbandoned), never failing the task", async () => {
    const { root, children } = await seedTree(1);
    await reclaim(children[0].id);
    const refused = environmentOf(children[0]).reserveChildren("more", 1);
    await expect(refused).rejects.toBeInstanceOf(SpawnerFenced);
    await expect(refused).rejects.toBeInstanceOf(AdvanceAbandoned);
    expect((await rowOf(root)).treeSize).toBe(2);
  });
});

describe("reservations batched per tree (reservation-batch.ts)", () => {
  it("sends the spawns arriving while a statement is in flight together, granting in arrival order while they fit", async () => {
    const { root, children } = await seedTree(3);
    const [a, b, c] = children;
    const queues = newReservationQueues();
    // a goes at once; b and c arrive while its statement is in flight and go together next.
    const rooms = await Promise.all([
      reserveInBatch(h.db, queues, a, 2, limits, 1),
      reserveInBatch(h.db, queues, b, 3, limits, 1),
      reserveInBatch(h.db, queues, c, 2, limits, 1),
    ]);
    // 4 rows + 2 + 3 = 9; c's 2 would make 11: counted exactly (9) and refused.
    expect(rooms).toEqual([
      { outcome: "reserved", depth: 1 },
      { outcome: "reserved", depth: 1 },
      { outcome: "full", depth: 1, size: 9 },
    ]);
    expect((await rowOf(root)).treeSize).toBe(9);
    expect(queues.size, "nothing left waiting").toBe(0);
  });

  it("refuses a stale worker in the batch without holding back the others", async () => {
    const { root, children } = await seedTree(3);
    const [a, b, c] = children;
    await reclaim(b.id);
    const queues = newReservationQueues();
    const rooms = await Promise.all([
      reserveInBatch(h.db, queues, a, 1, limits, 1),
      reserveInBatch(h.db, queues, b, 1, limits, 1),
      reserveInBatch(h.db, queues, c, 1, limits, 1),
    ]);
    expect(rooms.map((r) => r.outcome)).toEqual(["reserved", "fenced", "reserved"]);
    expect((await rowOf(root)).treeSize).toBe(6);
    expect(await rowOf(b.id)).toMatchObject({ reserved: 0, epoch: null });
  });

  it("takes one request per spawner per statement: a second one of the same spawner accumulates in the next", async () => {
    const { root, children } = await seedTree(2);
    const [a, b] = children;
    const queues = newReservationQueues();
    await Promise.all([
      reserveInBatch(h.db, queues, b, 1, limits, 1),
      reserveInBatch(h.db, queues, a, 2, limits, 1),
      reserveInBatch(h.db, queues, a, 3, limits, 1),
    ]);
    expect((await rowOf(root)).treeSize).toBe(9);
    expect(await rowOf(a.id)).toMatchObject({ reserved: 5, epoch: 1 });
  });

  it("refuses past the depth limit without a statement, and walks up an unknown depth alone", async () => {
    const { root, children } = await seedTree(1);
    const queues = newReservationQueues();
    expect(await reserveInBatch(h.db, queues, children[0], 1, { maxDepth: 1, maxInstances: 10 }, 1)).toEqual({
      outcome: "too_deep",
      depth: 1,
    });
    expect(await reserveInBatch(h.db, queues, children[0], 1, limits, undefined)).toEqual({
      outcome: "reserved",
      depth: 1,
    });
    expect((await rowOf(root)).treeSize).toBe(3);
  });
});
