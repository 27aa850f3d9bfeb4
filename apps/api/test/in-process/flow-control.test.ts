// Flow control in process (docs/flow-control.md): keyed concurrency on a task and on a process,
// fairness across keys, slots freed by a cancel and by settling, two engines granting from one
// database, and rate limits over a sliding period. The harness clock drives every wait.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantPass } from "../../src/engine/flow/grant.js";
import { createMetrics } from "../../src/metrics/metrics.js";
import { sampleOnce } from "../../src/metrics/sampler.js";
import { cancelTree, pauseTree, resumeTree } from "../../src/engine/index.js";
import { rowsOf } from "../../src/storage/db.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

const customer = { type: "object", properties: { customer: { type: "string" } }, required: ["customer"] };

const perCustomerTask = {
  name: "per-customer-task",
  input_schema: customer,
  tasks: [
    { id: "hold", action: { type: "delay", for: "10s" }, concurrency: { key: "$: input.customer", limit: 1 } },
    { id: "done", output: "$: input.customer" },
  ],
};

const perCustomerProcess = {
  name: "per-customer-process",
  input_schema: customer,
  concurrency: { key: "$: input.customer", limit: 1 },
  tasks: [
    { id: "first", action: { type: "delay", for: "10s" } },
    { id: "second", action: { type: "delay", for: "10s" } },
  ],
};

// One engine and database for the file (CI time): each test deploys its processes under names
// of its own, so their scopes and keys never meet.
let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h?.close();
});

let named = 0;
/** `def` under a name no other test uses. */
function fresh(def: { name: string; [field: string]: unknown }, more: Record<string, unknown> = {}): { name: string } {
  return { ...def, ...more, name: `${def.name}-${++named}` };
}

/** The slots held by instances of `process`. */
async function slots(
  harness: Harness,
  process: string,
): Promise<Array<{ scope: string; key: string; instance_id: string }>> {
  return rowsOf(
    await harness.db.execute(sql`
      SELECT s.scope, s.key, s.instance_id FROM flow_slots s JOIN instances i ON i.id = s.instance_id
      WHERE i.process = ${process} ORDER BY s.granted_at, s.instance_id`),
  );
}

async function waits(harness: Harness, process: string): Promise<string[]> {
  const rows = rowsOf<{ instance_id: string }>(
    await harness.db.execute(sql`
      SELECT w.instance_id FROM flow_waits w JOIN instances i ON i.id = w.instance_id
      WHERE i.process = ${process} ORDER BY w.since, w.instance_id`),
  );
  return rows.map((r) => r.instance_id);
}

/** Slots held now per (scope, key), counting only holders still on the granted visit (what a pass counts). */
async function heldPerKey(harness: Harness, process: string): Promise<Map<string, number>> {
  const rows = rowsOf<{ scope: string; key: string; n: number }>(
    await harness.db.execute(sql`
      SELECT s.scope, s.key, count(*)::int AS n FROM flow_slots s JOIN instances i ON i.id = s.instance_id
      WHERE i.process = ${process} AND i.status IN ('running', 'pausing', 'paused', 'failing', 'cancelling')
        AND (s.task_epoch = -1 OR s.task_epoch = i.task_epoch) AND s.scope NOT LIKE 'rate:%'
      GROUP BY s.scope, s.key`),
  );
  return new Map(rows.map((r) => [`${r.scope} ${r.key}`, Number(r.n)]));
}

/**
 * Instances that reached the gate in one claim round (their advances run side by side on
 * PostgreSQL) queue in whatever order they parked; the test fixes their order to `ids`'.
 */
async function queueInOrder(harness: Harness, ids: string[]): Promise<void> {
  for (const [i, id] of ids.entries())
    await harness.db.execute(sql`UPDATE flow_waits SET since = ${i + 1} WHERE instance_id = ${id}`);
}

async function startAll(harness: Harness, process: string, customers: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const c of customers) ids.push(await harness.start(process, { customer: c }));
  return ids;
}

describe("keyed concurrency on a task", () => {
  it("runs one visit per key at a time, in the order they reached the gate, and never holds a key back for another", async () => {
    const def = fresh(perCustomerTask);
    await h.deploy(def);
    const [a1, a2, a3, b1] = await startAll(h, def.name, ["a", "a", "a", "b"]);
    await h.tick(); // every instance reaches the gate and waits
    expect((await waits(h, def.name)).sort()).toEqual([a1, a2, a3, b1].sort());
    await queueInOrder(h, [a1, a2, a3, b1]);
    // The sampled gauges (docs/metrics.md): waits, keys with waits, the longest queue; no key as a label.
    const metrics = createMetrics({});
    await sampleOnce(h.db, h.clock, metrics);
    const text = await metrics.registry.metrics();
    expect(text).toContain('baton_flow_waiting{reason="concurrency"} 4');
    expect(text).toContain('baton_flow_waiting_keys{reason="concurrency"} 2');
    expect(text).toContain('baton_flow_waiting_longest_queue{reason="concurrency"} 3');
    const order: string[] = [];
    for (let round = 0; round < 12; round++) {
      await h.tick(round % 2 === 0 ? 0 : 10_000);
      for (const [key, n] of await heldPerKey(h, def.name)) expect(n, key).toBeLessThanOrEqual(1);
      for (const id of [a1, a2, a3, b1])
        if (!order.includes(id) && (await h.get(id)).status === "completed") order.push(id);
    }
    expect(order.filter((id) => id !== b1)).toEqual([a1, a2, a3]);
    // b waited behind no one: it finished with the first of a.
    expect(order.indexOf(b1)).toBeLessThanOrEqual(1);
    expect(await waits(h, def.name)).toEqual([]);
    const logs = await h.logs(a2);
    expect(logs.find((l) => l.event === "flow.waiting")?.data).toEqual({
      reason: "concurrency",
      scope: `task:${def.name}/hold`,
      key: "a",
      limit: 1,
    });
  });

  it("grants round-robin across keys when a pass is bounded: a key with one wait is served before a backlog's second", async () => {
    const def = fresh(perCustomerTask, {
      tasks: [{ ...perCustomerTask.tasks[0], concurrency: { key: "$: input.customer", limit: 5 } }],
    });
    await h.deploy(def);
    const ids = await startAll(h, def.name, ["a", "a", "a", "b", "b", "b", "c"]);
    await h.tick(); // all wait
    await queueInOrder(h, ids);
    expect((await grantPass(h.db, h.clock, 2)).full).toBe(true);
    const first = (await slots(h, def.name)).map((s) => s.instance_id);
    expect(first.sort()).toEqual([ids[0], ids[3]].sort());
    await grantPass(h.db, h.clock, 2); // c's only wait before a's and b's second
    const second = (await slots(h, def.name)).map((s) => s.instance_id).filter((id) => !first.includes(id));
    expect(second.sort()).toEqual([ids[1], ids[6]].sort());
  });

  it("frees a holder's slot when it is cancelled, and keeps a paused holder's slot until it moves", async () => {
    const def = fresh(perCustomerTask);
    await h.deploy(def);
    const [a1, a2] = await startAll(h, def.name, ["a", "a"]);
    await h.tick();
    await queueInOrder(h, [a1, a2]);
    await h.tick(); // a1 granted, runs into its delay
    expect((await slots(h, def.name)).map((s) => s.instance_id)).toEqual([a1]);
    await pauseTree(h.db, h.clock, a1, "test");
    await h.tick();
    await h.tick();
    expect((await slots(h, def.name)).map((s) => s.instance_id)).toEqual([a1]);
    expect(await waits(h, def.name)).toEqual([a2]);
    await resumeTree(h.db, h.clock, a1, "test");
    await cancelTree(h.db, h.clock, a1, "test");
    await h.tick(); // the pass forgets a1's slot and grants a2
    await h.tick();
    expect((await slots(h, def.name)).map((s) => s.instance_id)).toEqual([a2]);
    expect(await waits(h, def.name)).toEqual([]);
  });

  it("fails the instance with engine.expression when its key cannot be evaluated", async () => {
    const def = fresh({
      name: "bad-key",
      input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      tasks: [{ id: "t", action: { type: "delay", for: "1s" }, concurrency: { key: "$: 1 / input.n", limit: 1 } }],
    });
    await h.deploy(def);
    const id = await h.start(def.name, { n: 0 });
    const view = await h.runToEnd(id);
    expect(view.status).toBe("failed");
    expect(view.errorCode).toBe("engine.expression");
    expect(view.errorMessage).toMatch(/flow-control key/);
  });
});

describe("keyed concurrency on a process", () => {
  it("keeps one live root per key across all its tasks, the next starting when the first settles", async () => {
    const def = fresh(perCustomerProcess);
    await h.deploy(def);
    const [a1, a2, b1] = await startAll(h, def.name, ["a", "a", "b"]);
    await h.tick();
    await queueInOrder(h, [a1, a2, b1]);
    await h.tick();
    expect((await slots(h, def.name)).map((s) => s.instance_id).sort()).toEqual([a1, b1].sort());
    for (let i = 0; i < 3; i++) await h.tick(10_000); // a1 and b1 through both delays
    expect((await h.get(a1)).status).toBe("completed");
    expect((await h.get(a2)).status).toBe("running");
    for (let i = 0; i < 6; i++) await h.tick(10_000);
    expect((await h.get(a2)).status).toBe("completed");
  });
});

describe("two engines on one database", () => {
  it("never grant one key more slots than its limit while both claim, gate and grant", async () => {
    const def = fresh(perCustomerTask, {
      tasks: [{ ...perCustomerTask.tasks[0], concurrency: { key: "$: input.customer", limit: 2 } }],
    });
    await h.deploy(def);
    const other = h.newEngine("worker-b");
    const customers = Array.from({ length: 24 }, (_, i) => ["a", "b", "c"][i % 3]);
    const ids = await startAll(h, def.name, customers);
    for (let round = 0; round < 40; round++) {
      if (round % 3 === 2) h.clock.advance(10_000);
      await Promise.all([h.engine.tick(), other.tick()]);
      for (const [key, n] of await heldPerKey(h, def.name)) expect(n, key).toBeLessThanOrEqual(2);
      const statuses = await Promise.all(ids.map(async (id) => (await h.get(id)).status));
      if (statuses.every((s) => s === "completed")) break;
    }
    for (const id of ids) expect((await h.get(id)).status).toBe("completed");
  });
});

describe("rate limits", () => {
  it("starts at most `limit` actions per key in any period, the rest waiting with no lease", async () => {
    const def = fresh({
      name: "rated",
      input_schema: customer,
      tasks: [
        {
          id: "call",
          action: { type: "delay", for: "1ms" },
          rate_limit: { key: "$: input.customer", limit: 2, per: "1s" },
        },
      ],
    });
    await h.deploy(def);
    const ids = await startAll(h, def.name, ["a", "a", "a", "a", "a", "b"]);
    await h.tick();
    for (const id of ids) expect((await h.get(id)).leaseOwner).toBeNull();
    await h.tick(); // the first period: two of a, one of b
    const granted = (await slots(h, def.name)).map((s) => s.instance_id);
    expect(granted.filter((id) => id !== ids[5])).toHaveLength(2);
    expect(granted).toContain(ids[5]);
    await h.tick(500); // half a period later: nothing more for a
    expect((await slots(h, def.name)).filter((s) => s.key === "a" && !granted.includes(s.instance_id))).toHaveLength(0);
    await h.tick(600); // the first period is over: two more
    await h.tick();
    const completedOrGranted = (await slots(h, def.name))
      .map((s) => s.instance_id)
      .filter((id) => !granted.includes(id));
    expect(completedOrGranted.length).toBeLessThanOrEqual(2);
    for (let i = 0; i < 10; i++) await h.tick(1_000);
    for (const id of ids) expect((await h.get(id)).status).toBe("completed");
  });
});
