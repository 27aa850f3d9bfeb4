// The claim long-poll (`wait_ms`, docs/engine.md "Claim long-poll"): an empty claim waits for a
// task to park or a claim to be released, answers empty when the wait ends, and the server's
// shutdown does not wait for it.
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const waiting = {
  name: "long_poll",
  tasks: [{ id: "ask", action: { type: "external" } }],
};

describe("claim long-poll (wait_ms)", () => {
  let server: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    server = await startServer({ args: ["--poll", "0"] });
    api = client(server.url);
    const res = await api.put("/api/definitions", waiting);
    expect(res.status, res.text).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  const claim = (body: Record<string, unknown>) =>
    api.post("/api/external-tasks/claim", { worker_id: "w1", process: waiting.name, ...body });

  async function park(): Promise<string> {
    const res = await api.post("/api/instances", { process: waiting.name });
    expect(res.status, res.text).toBe(200);
    expect((await api.post("/api/tick", {})).status).toBe(200);
    return res.body.id;
  }

  it("answers an empty items when nothing parks within wait_ms", async () => {
    const res = await claim({ wait_ms: 300 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.items).toEqual([]);
  });

  it("a waiting claim gets the task that parks while it waits", async () => {
    const pending = claim({ wait_ms: 30_000 });
    const id = await park();
    const res = await pending;
    expect(res.status, res.text).toBe(200);
    expect(res.body.items).toHaveLength(1);
    const detail = await api.get(`/api/instances/${id}/detail`);
    expect(detail.body.phase).toBe("external");
    const resolved = await api.post("/api/external-tasks/resolve", { token: res.body.items[0].token, result: null });
    expect(resolved.status, resolved.text).toBe(200);
  });

  it("a claim released by one worker goes to the claim another worker has waiting", async () => {
    await park();
    const first = await claim({});
    expect(first.body.items).toHaveLength(1);
    const pending = api.post("/api/external-tasks/claim", { worker_id: "w2", process: waiting.name, wait_ms: 30_000 });
    const released = await api.post("/api/external-tasks/release", { token: first.body.items[0].token });
    expect(released.status, released.text).toBe(200);
    const res = await pending;
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.map((i: { claimed_by: string }) => i.claimed_by)).toEqual(["w2"]);
    await api.post("/api/external-tasks/resolve", { token: res.body.items[0].token, result: null });
  });

  it("refuses a wait_ms above the 60 s bound with a 400 naming the field", async () => {
    const res = await claim({ wait_ms: 60_001 });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain("wait_ms");
  });

  it("a claim still waiting when the server stops is answered, empty, instead of holding the shutdown", async () => {
    const own = await startServer({ args: ["--poll", "0"] });
    const ownApi = client(own.url);
    const pending = ownApi.post("/api/external-tasks/claim", { worker_id: "w3", process: "nothing", wait_ms: 60_000 });
    // The claim has reached the server once the process is known to answer other requests.
    expect((await ownApi.get("/healthz")).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    const stopped = own.stop();
    const res = await pending;
    await stopped;
    expect(res.status, res.text).toBe(200);
    expect(res.body.items).toEqual([]);
  });
});
