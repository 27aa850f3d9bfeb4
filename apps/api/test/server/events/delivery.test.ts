// Subscriptions on real servers (docs/events.md): the HTTP surface with secrets never shown, a
// server killed with SIGKILL between the commit of an event and its send (the restarted one
// sends it), a receiver down for a while (every event arrives, each instance's in order) and,
// on PostgreSQL, two replicas delivering together (each event once).
import {
  client,
  json,
  onPostgres,
  type SharedDatabase,
  sharedDatabase,
  startServer,
  startUpstream,
  type TestServer,
  type Upstream,
  until,
} from "@baton/testkit";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, start } from "../../support/instances-fixtures.js";

const quick = { name: "quick", input_schema: { type: "object" }, tasks: [{ id: "done" }], output: "$: input" };
const slow = { name: "slow", tasks: [{ id: "wait", action: { type: "delay", for: "1h" } }] };

const servers: TestServer[] = [];
const databases: SharedDatabase[] = [];
let receiver: Upstream;
/** One database and its server for the suite (CI budget); the SIGKILL test replaces the server. */
let shared: SharedDatabase;
let current: TestServer;

beforeAll(async () => {
  receiver = await startUpstream();
  shared = await sharedDatabase();
  databases.push(shared);
  current = await started(shared.location);
  const api = client(current.url);
  await deploy(api, quick);
  await deploy(api, slow);
});
afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => {});
  for (const d of databases) await d.dispose().catch(() => {});
  await receiver.close();
});

async function started(database: string, args: string[] = ["--poll", "0"]): Promise<TestServer> {
  const server = await startServer({ database, args });
  servers.push(server);
  return server;
}

const hits = (name: string) => receiver.requests.filter((r) => r.path === `/${name}`);
const headers = (r: { headers: unknown }) => r.headers as Record<string, string>;

describe("subscriptions over HTTP", () => {
  it("issue a secret once, never show it again, and log and redeliver; a bad URL is a 400 naming the field", async () => {
    const a = current;
    const api = client(a.url);
    const bad = await api.put("/api/subscriptions/bad", { url: "ftp://example.com/x", events: ["instance.completed"] });
    expect(bad.status).toBe(400);
    expect(bad.body.fields[0].path).toBe("body.url");
    const put = await api.put("/api/subscriptions/done", {
      url: `${receiver.url}/done`,
      events: ["instance.completed"],
      process: "quick",
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.created).toBe(true);
    const secret = put.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const replaced = await api.put("/api/subscriptions/done", {
      url: `${receiver.url}/done`,
      events: ["instance.completed", "instance.failed"],
      process: "quick",
    });
    expect(replaced.body.created).toBe(false);
    expect(replaced.body.secret).toBeUndefined();

    const { id } = await start(api, { process: "quick", input: { order: 7 } });
    await api.post("/api/tick");
    await api.post("/api/tick");
    const [hit] = hits("done");
    const event = new Webhook(secret).verify(hit.body, headers(hit)) as {
      data: { instance_id: string; output: unknown };
    };
    expect(event.data).toMatchObject({ instance_id: id, output: { order: 7 } });

    const log = await api.get("/api/subscriptions/done/deliveries");
    expect(log.status, log.text).toBe(200);
    expect(log.body.items[0]).toMatchObject({ status: "delivered", attempts: 1, event_id: headers(hit)["webhook-id"] });
    const again = await api.post("/api/subscriptions/done/redeliver", { delivery_id: log.body.items[0].id });
    expect(again.body).toEqual({ queued: 1 });
    await api.post("/api/tick");
    expect(hits("done").map((r) => headers(r)["webhook-id"])).toEqual([
      headers(hit)["webhook-id"],
      headers(hit)["webhook-id"],
    ]);
    const secretBody = secret.slice("whsec_".length);
    for (const path of ["/api/subscriptions", "/api/subscriptions/done", "/api/subscriptions/done/deliveries"]) {
      const shown = await api.get(path);
      expect(shown.status).toBe(200);
      expect(shown.text).not.toContain(secretBody);
    }
    expect(a.stderr()).not.toContain(secretBody);
    const rotated = await api.post("/api/subscriptions/done/rotate-secret", {});
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect((await api.get("/api/subscriptions/done")).text).not.toContain(rotated.body.secret.slice(6));
  });

  it("delivers an event committed just before a SIGKILL once the server is back", async () => {
    const a = current;
    const api = client(a.url);
    const put = await api.put("/api/subscriptions/crash", {
      url: `${receiver.url}/crash`,
      events: ["instance.completed"],
    });
    const { id } = await start(api, { process: "quick", input: {} });
    // The tick's claim round completes the instance: the event is committed with it, and the
    // delivery pass (which runs before the claim round) has not sent it yet.
    expect((await api.post("/api/tick")).body.count).toBe(1);
    await a.kill();
    expect(hits("crash")).toHaveLength(0);
    current = await started(shared.location);
    await client(current.url).post("/api/tick");
    const [hit] = hits("crash");
    expect(
      (new Webhook(put.body.secret).verify(hit.body, headers(hit)) as { data: { instance_id: string } }).data
        .instance_id,
    ).toBe(id);
  });

  it("delivers every event, each instance's in order, to a receiver that was down for a minute", async () => {
    const api = client(current.url);
    await api.put("/api/subscriptions/down", {
      url: `${receiver.url}/down`,
      events: ["instance.paused", "instance.cancelled"],
    });
    receiver.handle((r, res) => json(res, r.path === "/down" ? 503 : 200, {}));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await start(api, { process: "slow" })).id);
    await api.post("/api/tick");
    for (const id of ids) {
      await api.post(`/api/instances/${id}/pause`);
      await api.post(`/api/instances/${id}/resume`);
      await api.post(`/api/instances/${id}/cancel`);
    }
    // A minute down, in the service clock: the heads are tried again after each backoff.
    for (let i = 0; i < 6; i++) await api.post("/api/tick", { advance_ms: 10_000 });
    expect(hits("down").length).toBeGreaterThan(5);
    receiver.handle((_r, res) => json(res, 200, {}));
    const down = hits("down").length;
    for (let i = 0; i < 3; i++) await api.post("/api/tick", { advance_ms: 60_000 });
    const after = hits("down")
      .slice(down)
      .map((r) => JSON.parse(r.body) as { type: string; data: { instance_id: string } });
    for (const id of ids)
      expect(after.filter((e) => e.data.instance_id === id).map((e) => e.type)).toEqual([
        "instance.paused",
        "instance.cancelled",
      ]);
    const log = await api.get("/api/subscriptions/down/deliveries?status=pending");
    expect(log.body.items).toEqual([]);
  });

  it.runIf(onPostgres)(
    "never has two replicas deliver the same event",
    async () => {
      const db = await sharedDatabase();
      databases.push(db);
      const args = ["--poll", "20"];
      const a = await started(db.location, args);
      const b = await started(db.location, args);
      const api = client(a.url);
      await deploy(api, quick);
      await api.put("/api/subscriptions/pair", { url: `${receiver.url}/pair`, events: ["instance.completed"] });
      for (let i = 0; i < 60; i++) await start(i % 2 === 0 ? api : client(b.url), { process: "quick", input: { i } });
      await until("60 deliveries", async () => (hits("pair").length >= 60 ? true : undefined));
      // Give a duplicate, if any, every chance to land.
      await api.post("/api/tick");
      await client(b.url).post("/api/tick");
      const ids = hits("pair").map((r) => headers(r)["webhook-id"]);
      expect(ids).toHaveLength(60);
      expect(new Set(ids).size).toBe(60);
    },
    120_000,
  );
});
