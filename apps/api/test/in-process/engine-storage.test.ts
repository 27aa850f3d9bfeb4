import { json, startUpstream, type Upstream } from "@baton/testkit";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { objects } from "../../src/storage/schema/index.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness;
let up: Upstream;

beforeAll(async () => {
  h = await openHarness({ objectThresholdBytes: 256 });
  up = await startUpstream((req, res) => {
    if (req.path === "/big")
      return json(res, 200, { items: Array.from({ length: 50 }, (_, i) => ({ i, name: `item number ${i}` })) });
    if (req.path === "/echo") return json(res, 200, { count: JSON.parse(req.body).items.length });
    json(res, 200, {});
  });
});
afterAll(async () => {
  await up?.close();
  await h?.close();
});

describe("externalised values", () => {
  it("stores a large output once by content hash, references it from the state and resolves it for later tasks", async () => {
    const id = await h.deployAndStart({
      name: "bigdata",
      tasks: [
        {
          id: "load",
          action: {
            type: "fetch",
            method: "get",
            url: `${up.url}/big`,
            result_schema: {
              type: "object",
              properties: {
                items: {
                  type: "array",
                  items: {
                    type: "object",
                    properties: { i: { type: "integer" }, name: { type: "string" } },
                    required: ["i", "name"],
                  },
                },
              },
              required: ["items"],
            },
          },
        },
        {
          id: "use",
          action: {
            type: "fetch",
            url: `${up.url}/echo`,
            body: { items: "$: outputs.load.items" },
            result_schema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
          },
          output: "$: self.result.count",
        },
      ],
      output: { first: "$: outputs.load.items[0]", count: "$: outputs.use" },
    });
    await h.tick();
    const parked = await h.get(id);
    const ref = parked.state.outputs.load.items.$ref as string;
    expect(ref, "the big output is a placeholder in the stored state").toMatch(/^[0-9a-f]{64}$/);
    const [stored] = await h.db.select().from(objects).where(eq(objects.ref, ref));
    expect(JSON.parse(stored.value)).toHaveLength(50);
    await h.tick();
    const done = await h.get(id);
    expect(done.status).toBe("completed");
    expect(done.state.outputs.use, "the next task read the resolved value").toBe(50);
    expect(done.state.outputs.load, "an unchanged value keeps its placeholder").toEqual({ items: { $ref: ref } });
    expect(done.output).toEqual({ first: { i: 0, name: "item number 0" }, count: 50 });
  });
});

describe("leases", () => {
  it("renews the lease of an advance in flight", async () => {
    let answer: (() => void) | undefined;
    up.handle((req, res) => {
      if (req.path === "/long") answer = () => json(res, 200, { late: true });
      else json(res, 200, {});
    });
    const id = await h.deployAndStart({
      name: "longcall",
      tasks: [{ id: "call", action: { type: "fetch", url: `${up.url}/long`, timeout: { for: "1m" } } }],
    });
    const ticking = h.tick();
    while (answer === undefined) await new Promise((r) => setTimeout(r, 10));
    const first = (await h.db.execute(`select lease_expires_at from instances where id = '${id}'`)) as any;
    const before = Number((first.rows ?? first)[0].lease_expires_at);
    h.clock.advance(5_000);
    await new Promise((r) => setTimeout(r, 3_300));
    const second = (await h.db.execute(`select lease_expires_at from instances where id = '${id}'`)) as any;
    const after = Number((second.rows ?? second)[0].lease_expires_at);
    expect(after - before, "renewed from the (shifted) service clock").toBeGreaterThanOrEqual(5_000);
    expect(h.engine.leaseAgeMs(), "a lease is held").toBeLessThan(4_000);
    answer();
    expect(await ticking).toBe(1);
    expect((await h.get(id)).status).toBe("completed");
    expect(h.engine.leaseAgeMs(), "0 when idle").toBe(0);
  }, 20_000);

  it("stops a routing-only loop at a checkpoint instead of spinning forever in one advance", async () => {
    const id = await h.deployAndStart({
      name: "spin",
      tasks: [
        {
          id: "again",
          output: "$: (self.previous ?? 0) + 1",
          switch: [{ case: "self.output < 100000", goto: "$again" }, { goto: "end" }],
        },
      ],
    });
    expect(await h.tick()).toBe(1);
    const view = await h.get(id);
    expect(view.status).toBe("running");
    expect(view.state.outputs.again).toBe(1000);
    expect(view.wakeAt, "due again at once").toBeLessThanOrEqual(h.clock.now());
  });

  it("fails a parent with engine.spawn when its child names a version that is not registered", async () => {
    await h.deploy({ name: "kid", tasks: [{ id: "only" }] });
    const id = await h.deployAndStart({
      name: "parent",
      tasks: [{ id: "spawn", action: { type: "child", name: "kid", version: 9 } }],
    });
    await h.tick();
    const view = await h.get(id);
    expect(view.status).toBe("failed");
    expect(view.errorCode).toBe("engine.spawn");
    expect(view.errorMessage).toContain('process "kid" version 9 is not registered');
  });
});
