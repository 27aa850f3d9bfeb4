// What an operator sees of flow control over HTTP (docs/flow-control.md "Watching it"): why an
// instance waits and on what, the list and count filters, the waits grouped by key, and a key
// expression refused at registration with its path.
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, deploy } from "../../support/instances-fixtures.js";

let server: TestServer;
let api: Api;

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
});
afterAll(async () => {
  await server?.stop();
});

const perCustomer = {
  name: "waits_view",
  input_schema: { type: "object", properties: { customer: { type: "string" } }, required: ["customer"] },
  tasks: [{ id: "hold", action: { type: "delay", for: "1h" }, concurrency: { key: "$: input.customer", limit: 1 } }],
};

describe("flow-control waits over HTTP", () => {
  it("shows why an instance waits, filters and counts the waiting, and groups them by key", async () => {
    await deploy(api, perCustomer);
    const ids: string[] = [];
    for (const customer of ["a", "a", "a", "b"])
      ids.push((await api.post("/api/instances", { process: "waits_view", input: { customer } })).body.id);
    await api.post("/api/tick"); // all reach the gate
    await api.post("/api/tick"); // one of each key is granted and holds its slot in the delay

    const waiting = (await api.get("/api/instances?waiting_for=concurrency&process=waits_view")).body.items as Array<{
      id: string;
    }>;
    expect(waiting).toHaveLength(2);
    const detail = (await api.get(`/api/instances/${waiting[0].id}/detail`)).body;
    expect(detail.status).toBe("running");
    expect(detail.phase).toBeNull();
    expect(detail.waiting_for).toMatchObject({
      reason: "concurrency",
      scope: "task:waits_view/hold",
      key: "a",
      limit: 1,
    });
    const holder = ids.find((id) => !waiting.some((w) => w.id === id) && id !== ids[3])!;
    expect((await api.get(`/api/instances/${holder}/detail`)).body.waiting_for).toBeUndefined();

    expect((await api.get("/api/instances?wait_key=b")).body.items).toHaveLength(0);
    expect((await api.get("/api/instances?wait_key=a")).body.items).toHaveLength(2);
    expect((await api.get("/api/instances/counts?waiting_for=concurrency&process=waits_view")).body.total).toBe(2);

    const groups = (await api.get("/api/instances/waits?process=waits_view")).body;
    expect(groups.truncated).toBe(false);
    expect(groups.groups).toEqual([
      expect.objectContaining({ reason: "concurrency", scope: "task:waits_view/hold", key: "a", waiting: 2 }),
    ]);
  });

  it("refuses a key the checker cannot type, naming its path", async () => {
    const res = await api.put("/api/definitions", {
      ...perCustomer,
      name: "waits_bad",
      concurrency: { key: "$: outputs.hold", limit: 1 },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/concurrency\.key/);
  });
});
