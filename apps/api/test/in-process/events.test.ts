import { type Upstream, type UpstreamRequest, json, startUpstream } from "@baton/testkit";
import { parseJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  deleteSubscription,
  listDeliveries,
  putSubscription,
  readSubscription,
  redeliver,
  resumeSubscription,
  rotateSecret,
} from "../../src/engine/index.js";
import { rowsOf } from "../../src/storage/db.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

// docs/events.md: the outbox written by the triggers, delivery passes driven by ticks (the
// service clock moves the retries), signatures checked with the `standardwebhooks` package.

let h: Harness;
let receiver: Upstream;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

const quick = { name: "quick", input_schema: { type: "object" }, tasks: [{ id: "done" }], output: "$: input" };
const slow = { name: "slow", tasks: [{ id: "wait", action: { type: "delay", for: "1h" } }] };
const other = { name: "other", tasks: [{ id: "done", output: "$: 1" }] };

const deps = () => ({ db: h.db, clock: h.clock, config: h.config });

async function subscribe(name: string, body: Partial<Parameters<typeof putSubscription>[2]> = {}) {
  return putSubscription(
    deps(),
    name,
    { url: `${receiver.url}/hook/${name}`, events: ["instance.completed"], secret: SECRET, ...body },
    "tester",
  );
}

const received = (name: string) => receiver.requests.filter((r) => r.path === `/hook/${name}`);
const payload = (r: UpstreamRequest) => JSON.parse(r.body) as { type: string; timestamp: string; data: any };
const headers = (r: UpstreamRequest) => r.headers as Record<string, string>;

async function count(table: "events" | "event_deliveries"): Promise<number> {
  return Number(rowsOf<{ n: number }>(await h.db.execute(sql.raw(`SELECT count(*)::int AS n FROM ${table}`)))[0].n);
}

beforeAll(async () => {
  h = await openHarness();
  receiver = await startUpstream();
  for (const d of [quick, slow, other]) await h.deploy(d);
});

afterAll(async () => {
  await receiver.close();
  await h.close();
});

beforeEach(async () => {
  await h.db.execute(sql`DELETE FROM subscriptions`);
  await h.db.execute(sql`DELETE FROM event_deliveries`);
  receiver.handle((_r, res) => json(res, 200, {}));
  receiver.requests.length = 0;
});

describe("the outbox", () => {
  it("writes no event while no subscription wants one", async () => {
    const before = await count("events");
    const id = await h.start("quick", { n: 1 });
    expect((await h.runToEnd(id)).status).toBe("completed");
    expect(await count("events")).toBe(before);
  });

  it("records an event only for the subscriptions whose process filter matches", async () => {
    await subscribe("only-other", { process: "other" });
    const before = await count("events");
    await h.runToEnd(await h.start("quick", { n: 1 }));
    expect(await count("events"), "quick's completion matches no filter").toBe(before);
    await h.runToEnd(await h.start("other"));
    expect(await count("events")).toBe(before + 1);
  });
});

describe("delivery", () => {
  it("POSTs each completion once, signed by the Standard Webhooks scheme", async () => {
    await subscribe("signed");
    const id = await h.start("quick", parseJson('{"n": 42, "big": 12345678901234567890}'));
    await h.runToEnd(id);
    await h.tick();
    const [request] = received("signed");
    expect(request.method).toBe("POST");
    const verified = new Webhook(SECRET).verify(request.body, headers(request)) as any;
    expect(verified.type).toBe("instance.completed");
    expect(verified.data.instance_id).toBe(id);
    expect(verified.data.process).toBe("quick");
    expect(request.body, "exact numbers kept").toContain("12345678901234567890");
    await h.tick();
    expect(received("signed")).toHaveLength(1);
    const log = await listDeliveries(h.db, "signed", {}, 1000);
    expect(log.items[0]).toMatchObject({
      status: "delivered",
      attempts: 1,
      last_status: 200,
      type: "instance.completed",
    });
    expect(log.items[0].event_id).toBe(headers(request)["webhook-id"]);
  });

  it("refuses a wrong secret in the independent verifier", async () => {
    await subscribe("wrong");
    await h.runToEnd(await h.start("quick", {}));
    await h.tick();
    const [request] = received("wrong");
    const other = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
    expect(() => new Webhook(other).verify(request.body, headers(request))).toThrow();
  });

  it("retries with backoff until the receiver answers, keeping the events of one instance in order", async () => {
    await subscribe("ordered", { events: ["instance.paused", "instance.cancelled"] });
    receiver.handle((_r, res) => json(res, 503, { down: true }));
    const { pauseTree, cancelTree, resumeTree } = await import("../../src/engine/index.js");
    const id = await h.start("slow");
    await h.tick();
    await pauseTree(h.db, h.clock, id, "tester");
    await resumeTree(h.db, h.clock, id, "tester");
    await cancelTree(h.db, h.clock, id, "tester");
    await h.tick();
    // Down: only the head (paused) is tried, again after each backoff.
    for (let i = 0; i < 4; i++) await h.tick(30_000);
    const tried = received("ordered").map((r) => payload(r).type);
    expect(new Set(tried)).toEqual(new Set(["instance.paused"]));
    expect(tried.length).toBeGreaterThan(1);
    receiver.handle((_r, res) => json(res, 200, {}));
    receiver.requests.length = 0;
    await h.tick(60_000);
    await h.tick(60_000);
    expect(received("ordered").map((r) => payload(r).type)).toEqual(["instance.paused", "instance.cancelled"]);
    const [first, second] = received("ordered");
    expect(headers(first)["webhook-id"]).not.toBe(headers(second)["webhook-id"]);
  });

  it("parks a delivery as failed after --limit-delivery-attempts and suspends a subscription failing in a row", async () => {
    const config = { ...h.config, limits: { ...h.config.limits, deliveryAttempts: 2, subscriptionFailures: 2 } };
    const engine = h.newEngine("worker-limits", config);
    await putSubscription(
      { ...deps(), config },
      "failing",
      { url: `${receiver.url}/hook/failing`, events: ["instance.completed"], secret: SECRET },
      null,
    );
    receiver.handle((_r, res) => json(res, 500, { nope: "x".repeat(10_000) }));
    for (let i = 0; i < 3; i++) await h.runToEnd(await h.start("quick", { i }));
    for (let i = 0; i < 6; i++) {
      h.clock.advance(10_000);
      await engine.tick();
    }
    const view = await readSubscription(h.db, "failing");
    expect(view.suspended).toBe(true);
    expect(view.suspended_reason).toContain("--limit-subscription-failures");
    const log = await listDeliveries(h.db, "failing", { status: "failed" }, 1000);
    expect(log.items).toHaveLength(2);
    expect(log.items[0].attempts).toBe(2);
    expect(log.items[0].last_error?.startsWith("HTTP 500")).toBe(true);
    expect(log.items[0].last_error!.length).toBeLessThan(400);
    // Suspended: nothing more is tried, and what is pending waits (nothing is lost).
    receiver.requests.length = 0;
    h.clock.advance(60_000);
    await engine.tick();
    expect(received("failing")).toHaveLength(0);
    expect(view.pending).toBe(1);
    receiver.handle((_r, res) => json(res, 200, {}));
    await resumeSubscription(h.db, h.clock, "failing");
    await engine.tick();
    expect(received("failing")).toHaveLength(1);
    expect((await readSubscription(h.db, "failing")).pending).toBe(0);
    // Redeliver one parked delivery: it goes out again under its original webhook-id.
    const parked = log.items[1];
    expect(await redeliver({ ...deps(), config }, "failing", { deliveryId: Number(parked.id) })).toBe(1);
    await engine.tick();
    expect(headers(received("failing")[1])["webhook-id"]).toBe(parked.event_id);
  });

  it("signs with both secrets during a rotation's overlap, then with the new one only", async () => {
    await subscribe("rotating");
    const rotated = await rotateSecret(deps(), "rotating", { overlapMs: 60_000 });
    expect(rotated.secret).toMatch(/^whsec_/);
    await h.runToEnd(await h.start("quick", {}));
    await h.tick();
    const [during] = received("rotating");
    expect(headers(during)["webhook-signature"].split(" ")).toHaveLength(2);
    new Webhook(SECRET).verify(during.body, headers(during));
    new Webhook(rotated.secret!).verify(during.body, headers(during));
    h.clock.advance(61_000);
    await h.runToEnd(await h.start("quick", {}));
    await h.tick();
    const after = received("rotating")[1];
    expect(headers(after)["webhook-signature"].split(" ")).toHaveLength(1);
    expect(() => new Webhook(SECRET).verify(after.body, headers(after))).toThrow();
  });

  it("refuses a URL the fetch rules deny, as a failed attempt naming the flag", async () => {
    const config = { ...h.config, fetchDenyHosts: ["127.0.0.1"] };
    const engine = h.newEngine("worker-deny", config);
    await subscribe("denied");
    await h.runToEnd(await h.start("quick", {}));
    await engine.tick();
    expect(received("denied")).toHaveLength(0);
    const [d] = (await listDeliveries(h.db, "denied", {}, 1000)).items;
    expect(d.last_error).toContain("--fetch-deny");
  });

  it("reports external tasks waiting and failed schedule fires", async () => {
    await subscribe("waiting", { events: ["external_task.waiting"] });
    await h.deploy({
      name: "ask",
      input_schema: { type: "object", properties: { amount: { type: "number" } } },
      tasks: [{ id: "approve", action: { type: "external", input: { amount: "$: input.amount" } } }],
    });
    const id = await h.start("ask", { amount: 5 });
    await h.tick();
    await h.tick();
    const [r] = received("waiting");
    expect(payload(r)).toMatchObject({
      type: "external_task.waiting",
      data: { instance_id: id, task: "approve", input: { amount: 5 } },
    });
    // A failed fire as the firing pass records it (schedules/fire.ts): the trigger reports it.
    await subscribe("fires", { events: ["schedule.fire_failed"], process: "quick" });
    const now = h.clock.now();
    await h.db.execute(sql`
      INSERT INTO schedules (name, process, spec, created_at, updated_at) VALUES ('nightly', 'quick', '{}', ${now}, ${now})`);
    await h.db.execute(sql`
      INSERT INTO schedule_fires (id, schedule, fire_at, side, origin, outcome, reason, due_at, fired_at)
      VALUES ('f1', 'nightly', ${now}, 'calendar', 'scheduled', 'failed', 'channel "prod" points nowhere', ${now}, ${now})`);
    await h.tick();
    expect(payload(received("fires")[0])).toMatchObject({
      type: "schedule.fire_failed",
      data: { schedule: "nightly", process: "quick", origin: "scheduled", reason: 'channel "prod" points nowhere' },
    });
  });

  it("never delivers one attempt from two engines", async () => {
    await subscribe("raced");
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await h.start("quick", { i }));
    await h.tick();
    const b = h.newEngine("worker-b");
    await Promise.all([h.engine.tick(), b.tick(), h.engine.tick(), b.tick()]);
    await Promise.all([h.engine.tick(), b.tick()]);
    const got = received("raced").map((r) => headers(r)["webhook-id"]);
    expect(got).toHaveLength(20);
    expect(new Set(got).size).toBe(20);
  });

  it("deletes a subscription with its deliveries", async () => {
    await subscribe("gone");
    await h.runToEnd(await h.start("quick", {}));
    expect(await deleteSubscription(h.db, "gone")).toBe(true);
    expect(await count("event_deliveries")).toBe(0);
    expect(await deleteSubscription(h.db, "gone")).toBe(false);
  });
});
