// docs/limits.md#trees: a spawn's reservation and its write when the lease moves or the
// reservation is lost, ordered with write hooks, on PGlite or PostgreSQL (DATABASE_URL).
import { until } from "@baton/testkit";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancelTree } from "../../src/engine/index.js";
import { DEFAULT_LIMITS } from "../../src/limits.js";
import { rowsOf } from "../../src/storage/db.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

describe("a spawn's reservation when its lease or the reservation is lost", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness({ limits: { ...DEFAULT_LIMITS, treeDepth: 4, treeInstances: 20 } });
    await h.deploy({ name: "leaf", tasks: [{ id: "done", action: { type: "delay", for: "1s" } }] });
    await h.deploy({
      name: "pair",
      tasks: [{ id: "two", action: { type: "child_list", name: "leaf", over: "$: [{}, {}]" } }],
    });
  });
  afterAll(async () => h?.close());

  // The reservation commits without waiting for its WAL flush (trees/reservation.ts): a database
  // crash can lose it while the spawner's write still follows. That write must not insert
  // unreserved children. The loss is made here by clearing the reservation before the write.
  it("is refused, inserting nothing; the instance runs again under a new lease and spawns with a reservation", async () => {
    const id = await h.start("pair");
    const engine = h.newEngine(
      "loses-reservation",
      {},
      {
        beforeWrite: async (instance) => {
          await h.db.execute(sql`UPDATE instances SET reserved_children = 0 WHERE id = ${instance}`);
        },
      },
    );
    expect(await engine.tick(), "the write was refused").toBe(0);
    const count = async () =>
      Number(
        rowsOf<{ n: number }>(
          await h.db.execute(sql`SELECT count(*)::int AS n FROM instances WHERE root_id = ${id}`),
        )[0].n,
      );
    expect(await count()).toBe(1);
    expect((await h.get(id)).status).toBe("running");
    // The lease lapses; the harness's engine reclaims the row and spawns, reserving again.
    expect(await h.tick(60_000)).toBe(1);
    expect(await count()).toBe(3);
    const [root] = rowsOf<{ tree_size: number | string; reserved_children: number | string }>(
      await h.db.execute(sql`SELECT tree_size, reserved_children FROM instances WHERE id = ${id}`),
    );
    // The lost reservation's 2 stay in tree_size (an over-count, taken back by the exact count of a refusal).
    expect({ treeSize: Number(root.tree_size), reserved: Number(root.reserved_children) }).toEqual({
      treeSize: 5,
      reserved: 0,
    });
    // Nothing of this tree stays due for the next test's engines.
    await cancelTree(h.db, h.clock, id, null);
  });

  // The database stalls (or the worker freezes) after worker A's reservation committed: A's
  // lease lapses and the harness's engine reclaims the row, runs the spawn again and reserves.
  // A's reservation is stale, replaced by the new holder's, never counted twice; A's write is
  // fenced out.
  it("counts the children once: the new holder's reservation replaces the stale one", async () => {
    const id = await h.start("pair");
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reserved = false;
    const a = h.newEngine(
      "stalls-after-reserving",
      {},
      {
        beforeWrite: async (instance) => {
          if (instance !== id) return;
          reserved = true;
          await released;
        },
      },
    );
    const ticking = a.tick();
    await until("worker A to reserve and reach its write", () => (reserved ? true : undefined));
    const sizeOf = async () =>
      rowsOf<{ tree_size: number | string; n: number | string }>(
        await h.db.execute(
          sql`SELECT tree_size, (SELECT count(*)::int FROM instances WHERE root_id = ${id}) AS n FROM instances WHERE id = ${id}`,
        ),
      ).map((r) => ({ treeSize: Number(r.tree_size), rows: Number(r.n) }))[0];
    expect(await sizeOf(), "A's 2 children are reserved, not rows").toEqual({ treeSize: 3, rows: 1 });
    await h.tick(60_000);
    expect((await h.get(id)).leaseOwner, "the new holder's spawn landed").toBeNull();
    expect(await sizeOf()).toEqual({ treeSize: 3, rows: 3 });
    release();
    expect(await ticking, "A's write was fenced out").toBe(0);
    expect(await sizeOf()).toEqual({ treeSize: 3, rows: 3 });
  });
});
