// POST /instances/{id}/reset over HTTP on the built server with its pump on (docs/safe-change.md
// "Reset"): the journal rows written by the one-statement start (a first advance run in memory)
// and by the one-version resolve restore the exact state, a value stored as an object comes back
// whole, and bad requests get their ApiCode and sentence. One server for the file.
import {
  client,
  json,
  settled,
  startServer,
  startUpstream,
  type TestServer,
  until,
  type Upstream,
} from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { deploy, start } from "../../support/instances-fixtures.js";

vi.setConfig({ testTimeout: 120_000 });

let server: TestServer;
let up: Upstream;
let api: ReturnType<typeof client>;
/** A response body well over --object-threshold (2048 bytes): stored as an object in the state. */
const BIG = { lines: Array.from({ length: 200 }, (_, i) => ({ sku: `SKU-${i}`, qty: i })) };

beforeAll(async () => {
  up = await startUpstream((req, res) => json(res, req.path === "/big" ? 200 : 500, req.path === "/big" ? BIG : {}));
  server = await startServer();
  api = client(server.url);
});
afterAll(async () => {
  await server?.stop();
  await up?.close();
});

const reset = (id: string, body: object) => api.post(`/api/instances/${id}/reset`, body);
const detail = async (id: string, resolve = false) =>
  (await api.get(`/api/instances/${id}/detail${resolve ? "?resolve=true" : ""}`)).body;

describe("reset over HTTP", () => {
  it("restores the state of a task entered by the start's in-memory advance", async () => {
    await deploy(api, {
      name: "inmem",
      input_schema: { type: "object", properties: { n: { type: "integer" } } },
      tasks: [
        { id: "a", output: { x: "$: input.n * 2" } },
        { id: "b", output: { y: "$: outputs.a.x + 1" } },
        { id: "c", switch: [{ case: "outputs.b.y > 0", raise: { code: "too_high", message: "y > 0" } }] },
      ],
    });
    const started = await start(api, { process: "inmem", input: { n: 1 } });
    expect(started.status, "the whole run happened inside the start").toBe("raised");
    const answer = await reset(started.id, { to_task: "b", paused: true });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      outcome: "reset",
      status: "paused",
      instances: 1,
      task: "b",
      task_epoch: 4,
      restored_from: { task_epoch: 2, entered: true },
      dropped: ["b"],
      children: { cancelled: 0, detached: 0 },
    });
    expect((await detail(started.id)).state).toEqual({ input: { n: 1 }, outputs: { a: { x: 2 } }, _children: {} });
    expect((await api.post(`/api/instances/${started.id}/resume`)).status).toBe(200);
    expect(await settled(api, started.id)).toMatchObject({ status: "raised", task: "c" });
  });

  it("restores the state of a task entered by a resolve's one-statement advance", async () => {
    await deploy(api, {
      name: "ext",
      tasks: [
        { id: "e", action: { type: "external", result_schema: { type: "object" } } },
        { id: "f", output: { got: "$: outputs.e.v" } },
        { id: "g", switch: [{ raise: { code: "stop", message: "stop" } }] },
      ],
    });
    const { id } = await start(api, { process: "ext" });
    const claimed = await until("the external task claimed", async () => {
      const res = await api.post("/api/external-tasks/claim", { worker_id: "w1", process: "ext", task: "e" });
      return res.body.items?.[0];
    });
    const resolved = await api.post("/api/external-tasks/resolve", { token: claimed.token, result: { v: 7 } });
    expect(resolved.status, resolved.text).toBe(200);
    expect(await settled(api, id)).toMatchObject({ status: "raised", task: "g" });
    expect((await reset(id, { to_task: "f", paused: true })).body).toMatchObject({ task: "f", status: "paused" });
    expect((await detail(id)).state).toEqual({ input: {}, outputs: { e: { v: 7 } }, _children: {} });
  });

  it("brings back an output stored as an object whole", async () => {
    await deploy(api, {
      name: "big",
      tasks: [
        { id: "load", action: { type: "fetch", url: `${up.url}/big` } },
        { id: "send", action: { type: "fetch", url: `${up.url}/down` } },
      ],
    });
    const { id } = await start(api, { process: "big" });
    expect(await settled(api, id)).toMatchObject({ status: "failed", task: "send", error_code: "http.500" });
    const before = await detail(id);
    expect(before.objects).toHaveLength(1);
    expect(before.objects[0].path.slice(0, 3), "the big output is stored as an object").toEqual([
      "state",
      "outputs",
      "load",
    ]);
    expect((await reset(id, { to_task: "send", paused: true })).status).toBe(200);
    const after = await detail(id);
    expect(after.state.outputs.load, "stored as the same object again").toEqual(before.state.outputs.load);
    expect((await detail(id, true)).state).toEqual({ input: {}, outputs: { load: BIG }, _children: {} });
  });

  it("answers each bad request with its code and a sentence naming what was wrong", async () => {
    await deploy(api, { name: "parked", tasks: [{ id: "w", action: { type: "external" } }] });
    const { id } = await start(api, { process: "parked" });
    await until("parked", async () => ((await detail(id)).phase === "external" ? true : undefined));

    const running = await reset(id, { to_task: "w" });
    expect([running.status, running.body.code]).toEqual([409, "conflict"]);
    expect(running.body.error).toContain("is running; reset acts on a failed, raised, completed or paused instance");

    await api.post(`/api/instances/${id}/pause`);
    const unknown = await reset(id, { to_task: "nope" });
    expect([unknown.status, unknown.body.code, unknown.body.error]).toEqual([
      404,
      "not_found",
      'process "parked" version 1 has no task "nope"',
    ]);
    const missing = await reset(id, {});
    expect([missing.status, missing.body.code]).toEqual([400, "invalid"]);
    expect(JSON.stringify(missing.body.fields)).toContain("to_task");
    const absent = await reset("019a3c1e-0000-7000-8000-00000000ffff", { to_task: "w" });
    expect([absent.status, absent.body.code]).toEqual([404, "not_found"]);
  });
});
