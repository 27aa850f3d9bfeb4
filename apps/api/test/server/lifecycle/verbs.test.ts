import { client, json, startServer, startUpstream, type TestServer, type Upstream, createGate } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, start as startInstance } from "../../support/instances-fixtures.js";

let server: TestServer;
let up: Upstream;
let api: ReturnType<typeof client>;
/** Holds calls to /hold: a task in flight until the test releases it. */
const gate = createGate();

beforeAll(async () => {
  up = await startUpstream((req, res) => {
    if (req.path.startsWith("/hold")) return gate.hold(res, { held: true });
    if (req.path.startsWith("/fail")) return json(res, 500, { error: "boom" });
    json(res, 200, { ok: true });
  });
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
  for (const def of [
    {
      name: "steps",
      tasks: [
        { id: "one", action: { type: "fetch", url: `${up.url}/ok` } },
        { id: "two", action: { type: "fetch", url: `${up.url}/ok` } },
      ],
    },
    {
      name: "held",
      tasks: [
        { id: "one", action: { type: "fetch", url: `${up.url}/hold` } },
        { id: "two", action: { type: "fetch", url: `${up.url}/ok` } },
      ],
    },
    { name: "broken", tasks: [{ id: "one", action: { type: "fetch", url: `${up.url}/fail` } }] },
    { name: "broken_once", tasks: [{ id: "one", only_once: true, action: { type: "fetch", url: `${up.url}/fail` } }] },
  ])
    await deploy(api, def);
});
afterAll(async () => {
  gate.releaseAll();
  await server?.stop();
  await up?.close();
});

const start = async (process: string) => (await startInstance(api, { process })).id;

describe("lifecycle verbs over HTTP", () => {
  it("pause 200 / 204, resume 200 / 204, with {outcome, status, instances}", async () => {
    const id = await start("steps");
    const paused = await api.post(`/api/instances/${id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toEqual({ outcome: "paused", status: "paused", instances: 1 });
    const again = await api.post(`/api/instances/${id}/pause`);
    expect(again.status).toBe(204);
    expect(again.text).toBe("");
    expect((await api.post("/api/tick", {})).body).toEqual({ count: 0 });
    const resumed = await api.post(`/api/instances/${id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toEqual({ outcome: "resumed", status: "running", instances: 1 });
    expect((await api.post(`/api/instances/${id}/resume`)).status).toBe(204);
    await api.post("/api/tick", {});
    await api.post("/api/tick", {});
    expect((await api.get(`/api/instances/${id}`)).body.status).toBe("completed");
    const settled = await api.post(`/api/instances/${id}/resume`);
    expect(settled.status).toBe(409);
    expect(settled.body.code).toBe("conflict");
    expect(settled.body.error).toContain("completed");
  });

  it("pause and cancel drain a task in flight with 202 and land at the boundary", async () => {
    const id = await start("held");
    const tick = api.post("/api/tick", {});
    await gate.whenParked();
    const pausing = await api.post(`/api/instances/${id}/pause`);
    expect(pausing.status).toBe(202);
    expect(pausing.body).toEqual({ outcome: "pausing", status: "pausing", instances: 1 });
    const cancelling = await api.post(`/api/instances/${id}/cancel`);
    expect(cancelling.status).toBe(202);
    expect(cancelling.body).toEqual({ outcome: "cancelling", status: "cancelling", instances: 1 });
    gate.releaseOne();
    expect((await tick).body).toEqual({ count: 1 });
    const view = (await api.get(`/api/instances/${id}`)).body;
    expect(view.status).toBe("cancelled");
    expect((await api.post(`/api/instances/${id}/cancel`)).status, "nothing live to stop").toBe(204);
    const retry = await api.post(`/api/instances/${id}/retry`);
    expect(retry.status).toBe(409);
    expect(retry.body.error).toContain("cancelled");
  });

  it("a second /tick works while another is blocked inside a slow fetch", async () => {
    const slow = await start("held");
    const blocked = api.post("/api/tick", {});
    await gate.whenParked();
    const quick = await start("steps");
    const second = await api.post("/api/tick", {});
    expect(second.body).toEqual({ count: 1 });
    expect((await api.get(`/api/instances/${quick}`)).body.task).toBe("two");
    gate.releaseOne();
    expect((await blocked).body).toEqual({ count: 1 });
    expect((await api.get(`/api/instances/${slow}`)).body.task).toBe("two");
  });

  it("retry revives a failed instance (200 retried); only_once needs force=true", async () => {
    const id = await start("broken");
    await api.post("/api/tick", {});
    const failed = (await api.get(`/api/instances/${id}`)).body;
    expect(failed.status).toBe("failed");
    expect(failed.error_code).toBe("http.500");
    const retried = await api.post(`/api/instances/${id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual({ outcome: "retried", status: "running", instances: 1 });
    const once = await start("broken_once");
    await api.post("/api/tick", {});
    const refused = await api.post(`/api/instances/${once}/retry`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain("force=true");
    const forced = await api.post(`/api/instances/${once}/retry?force=true`);
    expect(forced.status).toBe(200);
    const logs = (await api.get(`/api/instances/${once}/logs`)).body.items.map((l: any) => l.event);
    expect(logs).toContain("instance.retried");
  });

  it("404 for an unknown id and 400 for a malformed one", async () => {
    const missing = await api.post("/api/instances/0190a3c4-0000-7000-8000-000000000000/pause");
    expect(missing.status).toBe(404);
    const bad = await api.post("/api/instances/not-an-id/cancel");
    expect(bad.status).toBe(400);
  });
});
