// Retention (docs/retention.md) on the engine's database (PGlite, or PostgreSQL with
// DATABASE_URL): settled trees older than the retention go whole with their logs, wait rows and
// unreferenced objects; live trees and objects they share stay; passes are bounded; and
// pruning while the pump runs loses nothing live.
import { json, startUpstream, type Upstream, until } from "@baton/testkit";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { retentionPass } from "../../src/engine/index.js";
import { idBefore, RETENTION_LIMITS } from "../../src/engine/housekeeping/retention.js";
import { rowsOf } from "../../src/storage/db.js";
import { sqlTextArray } from "../../src/storage/sql-arrays.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

// Each test runs a few dozen engine ticks on a real database: on a loaded 2-core machine that
// took over 30 s (the shared default), so they get more room. Not a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const HOUR = 3_600_000;
/** Bigger than the 2,048-byte object threshold: stored once in `objects`, shared by equal inputs. */
const blob = (seed: string) => seed.repeat(Math.ceil(3_000 / seed.length));
const BLOB_INPUT = { type: "object", properties: { blob: { type: "string" }, key: { type: "string" } } };

let up: Upstream;
const hits = new Map<string, number>();
beforeAll(async () => {
  up = await startUpstream((req, res) => {
    const key = req.path.split("/").at(-1)!;
    hits.set(key, (hits.get(key) ?? 0) + 1);
    json(res, 200, { ok: true });
  });
});
afterAll(() => up?.close());

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const leaf = {
  name: "r_leaf",
  input_schema: BLOB_INPUT,
  tasks: [{ id: "calc", output: { size: "$: len(input.blob)" } }],
  output: { size: "$: outputs.calc.size" },
};
const tree = {
  name: "r_tree",
  input_schema: BLOB_INPUT,
  tasks: [
    {
      id: "kids",
      action: {
        type: "child_map",
        children: {
          a: { name: "r_leaf", input: { blob: "$: input.blob" } },
          b: { name: "r_leaf", input: { blob: "$: input.blob" } },
        },
      },
    },
  ],
};
/** Parked an hour on a delay: a live tree. */
const waiting = {
  name: "r_wait",
  input_schema: BLOB_INPUT,
  tasks: [{ id: "wait", action: { type: "delay", for: "1h" } }],
};

async function count(harness: Harness, query: ReturnType<typeof sql>): Promise<number> {
  return Number(rowsOf<{ n: unknown }>(await harness.db.execute(query))[0]!.n);
}
const treeRows = (harness: Harness, root: string) =>
  count(harness, sql`SELECT count(*) AS n FROM instances WHERE root_id = ${root}`);
const treeLogs = (harness: Harness, root: string) =>
  count(harness, sql`SELECT count(*) AS n FROM logs WHERE root_id = ${root}`);
const objectCount = (harness: Harness) => count(harness, sql`SELECT count(*) AS n FROM objects`);
async function refsOf(harness: Harness, id: string): Promise<string[]> {
  const [row] = rowsOf<{ state: string }>(await harness.db.execute(sql`SELECT state FROM instances WHERE id = ${id}`));
  return [...row!.state.matchAll(/"\$ref":"([0-9a-f]{64})"/g)].map((m) => m[1]!);
}
const objectExists = async (harness: Harness, ref: string) =>
  (await count(harness, sql`SELECT count(*) AS n FROM objects WHERE ref = ${ref}`)) === 1;

/** Ticks until no row of the tree is running. */
async function settle(harness: Harness, root: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const live = await count(
      harness,
      sql`SELECT count(*) AS n FROM instances WHERE root_id = ${root} AND status IN ('running', 'failing')`,
    );
    if (live === 0) return;
    await harness.tick();
  }
  throw new Error(`tree ${root} did not settle`);
}

describe("retention", () => {
  // First in the file: log ids carry the time they were made (storage/ids.ts keeps them
  // increasing per process), and the later tests move their clocks hours ahead.
  it("--log-retention deletes log lines older than it, oldest first and bounded, and no instance", async () => {
    h = await openHarness();
    await h.deploy(leaf);
    const old: string[] = [];
    for (let i = 0; i < 4; i++) old.push(await h.start("r_leaf", { blob: `old-${i}` }));
    for (const root of old) await settle(h, root);
    h.clock.advance(2 * HOUR);
    const young = await h.start("r_leaf", { blob: "young" });
    await settle(h, young);
    const oldLogs = await count(h, sql`SELECT count(*) AS n FROM logs WHERE id < ${idBefore(h.clock.now() - HOUR)}`);
    expect(oldLogs).toBeGreaterThanOrEqual(8);
    const youngLogs = await treeLogs(h, young);
    const limits = { ...RETENTION_LIMITS, logsPerBatch: 3, logsPerPass: 7 };
    const first = await retentionPass(h.db, h.clock.now(), { logRetentionMs: HOUR }, {}, limits);
    expect(first.rows.logs).toBe(7);
    expect(first.more).toBe(true);
    for (let i = 0; i < 10; i++) {
      const pass = await retentionPass(h.db, h.clock.now(), { logRetentionMs: HOUR }, {}, limits);
      if (!pass.more) break;
    }
    for (const root of old) expect(await treeLogs(h, root)).toBe(0);
    expect(await treeLogs(h, young)).toBe(youngLogs);
    expect(await count(h, sql`SELECT count(*) AS n FROM instances`)).toBe(5);
  });

  it("deletes a settled tree older than the retention whole, and keeps an older live tree whole", async () => {
    h = await openHarness();
    for (const d of [leaf, tree, waiting]) await h.deploy(d);
    const done = await h.start("r_tree", { blob: blob("done-") });
    await settle(h, done);
    expect((await h.get(done)).status).toBe("completed");
    const live = await h.start("r_wait", { blob: blob("live-") });
    await h.tick();
    expect((await h.get(live)).status).toBe("running");
    const liveRefs = await refsOf(h, live);
    expect(liveRefs).toHaveLength(1);
    const doneRefs = await refsOf(h, done);
    expect(doneRefs).toHaveLength(1);
    expect(await treeRows(h, done)).toBe(3);
    const liveRows = await treeRows(h, live);
    const liveLogs = await treeLogs(h, live);

    // Not yet older than the retention: nothing goes.
    const early = await retentionPass(h.db, h.clock.now(), { retentionMs: HOUR }, {});
    expect(early.trees).toBe(0);
    expect(await treeRows(h, done)).toBe(3);

    h.clock.advance(2 * HOUR);
    const pass = await retentionPass(h.db, h.clock.now(), { retentionMs: HOUR }, {});
    expect(pass.trees).toBe(1);
    expect(pass.rows.instances).toBe(3);
    expect(pass.rows.objects).toBe(1);
    expect(await treeRows(h, done)).toBe(0);
    expect(await treeLogs(h, done)).toBe(0);
    expect(await objectExists(h, doneRefs[0]!)).toBe(false);
    // The live tree started two hours ago is untouched: rows, logs, its object.
    expect(await treeRows(h, live)).toBe(liveRows);
    expect(await treeLogs(h, live)).toBe(liveLogs);
    expect(await objectExists(h, liveRefs[0]!)).toBe(true);
    expect((await h.get(live)).status).toBe("running");
  });

  it("keeps an object a live tree shares with a deleted one, and deletes it once no tree references it", async () => {
    h = await openHarness();
    for (const d of [leaf, waiting]) await h.deploy(d);
    const shared = blob("shared-");
    const dead = await h.start("r_leaf", { blob: shared });
    await settle(h, dead);
    const alive = await h.start("r_wait", { blob: shared });
    await h.tick();
    const [ref] = await refsOf(h, alive);
    expect(await refsOf(h, dead)).toEqual([ref]);

    h.clock.advance(2 * HOUR);
    const first = await retentionPass(h.db, h.clock.now(), { retentionMs: HOUR / 2 }, {});
    expect(first.trees).toBe(1);
    expect(await treeRows(h, dead)).toBe(0);
    expect(await objectExists(h, ref!), "still referenced by the live tree").toBe(true);
    expect(first.rows.objects ?? 0).toBe(0);

    // The delay ends; once that tree is older than the retention too, the object goes with it.
    await h.tick();
    expect((await h.get(alive)).status).toBe("completed");
    h.clock.advance(HOUR);
    const second = await retentionPass(h.db, h.clock.now(), { retentionMs: HOUR / 2 }, {});
    expect(second.trees).toBe(1);
    expect(await objectExists(h, ref!)).toBe(false);
    expect(await objectCount(h)).toBe(0);
  });

  it("bounds each pass: trees and log lines per pass, the rest in later passes", async () => {
    h = await openHarness();
    await h.deploy(leaf);
    const roots: string[] = [];
    for (let i = 0; i < 25; i++) roots.push(await h.start("r_leaf", { blob: `small-${i}` }));
    for (const root of roots) await settle(h, root);
    h.clock.advance(2 * HOUR);
    const limits = { ...RETENTION_LIMITS, treesPerBatch: 4, treesPerPass: 10 };
    const remaining = () => count(h!, sql`SELECT count(*) AS n FROM instances`);
    const passes = [];
    for (let i = 0; i < 3; i++)
      passes.push(await retentionPass(h.db, h.clock.now(), { retentionMs: HOUR }, {}, limits));
    expect(passes.map((p) => p.trees)).toEqual([10, 10, 5]);
    expect(passes.map((p) => p.more)).toEqual([true, true, false]);
    expect(await remaining()).toBe(0);
  });

  it("loses nothing live while the pump runs trees and passes prune them as they settle", async () => {
    h = await openHarness();
    const fetchLeaf = {
      name: "r_fetch",
      input_schema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
      tasks: [{ id: "call", action: { type: "fetch", url: `${up.url}/hit/\${input.key}` }, output: {} }],
    };
    const fetchTree = {
      name: "r_fetch_tree",
      input_schema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
      tasks: [
        {
          id: "kids",
          action: {
            type: "child_map",
            children: {
              a: { name: "r_fetch", input: { key: "$: input.key" } },
              b: { name: "r_fetch", input: { key: "$: input.key" } },
            },
          },
        },
      ],
    };
    for (const d of [waiting, fetchLeaf, fetchTree]) await h.deploy(d);
    const livers: string[] = [];
    for (let i = 0; i < 5; i++) livers.push(await h.start("r_wait", { blob: blob(`liver-${i}-`) }));
    h.newEngine("pump", { pollMs: 10 });
    const keys = Array.from({ length: 30 }, (_, i) => `load-${process.pid}-${i}`);
    const roots: string[] = [];
    for (const key of keys) roots.push(await h.start("r_fetch_tree", { key }));

    // Passes with a zero retention delete every tree the moment it has settled, while a checker
    // asserts the database never holds part of a tree or a live row without its root.
    let pruned = 0;
    let checks = 0;
    const orphans = () =>
      count(
        h!,
        sql`SELECT count(*) AS n FROM instances i WHERE NOT EXISTS (SELECT 1 FROM instances r WHERE r.id = i.root_id)`,
      );
    await until(
      "every load tree to be pruned",
      async () => {
        const pass = await retentionPass(h!.db, h!.clock.now(), { retentionMs: 0 }, {});
        pruned += pass.rows.instances ?? 0;
        expect(await orphans()).toBe(0);
        checks++;
        const left = await count(h!, sql`SELECT count(*) AS n FROM instances WHERE process LIKE 'r_fetch%'`);
        return left === 0 ? true : undefined;
      },
      60_000,
    );
    expect(checks).toBeGreaterThan(1);
    expect(pruned).toBe(roots.length * 3);
    // Every tree ran whole before it went: both children called the upstream once.
    for (const key of keys) expect(hits.get(key), key).toBe(2);
    expect(await count(h, sql`SELECT count(*) AS n FROM logs WHERE root_id = ANY(${sqlTextArray(roots)})`)).toBe(0);
    // The live trees, started first, are all there with their objects.
    for (const root of livers) {
      expect((await h.get(root)).status).toBe("running");
      for (const ref of await refsOf(h, root)) expect(await objectExists(h, ref)).toBe(true);
    }
  });
});
