// Child instances over the HTTP API of a real baton-api: versions pinned by channel batches,
// the list/detail/logs views of a tree, and the verbs refusing a child id.
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { start as startInstance } from "../../support/instances-fixtures.js";

let server: TestServer;
let api: ReturnType<typeof client>;

const kid = (task: string) => ({
  name: "kid",
  tasks: [{ id: task, output: { from: task } }],
  output: { from: `$: outputs.${task}.from` },
});
const FROM = { type: "object", properties: { from: { type: "string" } }, required: ["from"] };
const parent = (name: string) => ({
  name,
  tasks: [{ id: "spawn", action: { type: "child", name: "kid", result_schema: FROM } }],
  output: { child_said: "$: outputs.spawn.from" },
});

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
  // v1 of kid and "pinned" in one channel batch: pinned's child reference is pinned to kid v1.
  const batch = await api.put("/api/definitions/batch", {
    channel: "prod",
    definitions: [kid("first"), parent("pinned")],
  });
  expect(batch.status, batch.text).toBe(200);
  expect((await api.put("/api/definitions", kid("second"))).body.version).toBe(2);
  // Registered alone, after kid v2: no pin, so its child runs the latest kid.
  expect((await api.put("/api/definitions", parent("floating"))).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

const start = async (process: string) => (await startInstance(api, { process })).id;

async function runToEnd(id: string): Promise<any> {
  for (let i = 0; i < 10; i++) {
    const view = (await api.get(`/api/instances/${id}`)).body;
    if (view.status !== "running") return view;
    await api.post("/api/tick", {});
  }
  return (await api.get(`/api/instances/${id}`)).body;
}

describe("child versions", () => {
  it("runs the child version pinned when the parent was registered through a channel batch", async () => {
    const id = await start("pinned");
    const done = await runToEnd(id);
    expect(done.status).toBe("completed");
    expect(done.output, "kid v1 ran, though v2 is the latest").toEqual({ child_said: "first" });
  });

  it("runs the latest child version for a parent registered without a batch", async () => {
    const id = await start("floating");
    const done = await runToEnd(id);
    expect(done.output).toEqual({ child_said: "second" });
  });
});

describe("a tree through the API", () => {
  it("lists, details and logs the tree, and refuses a verb on the child id naming the root", async () => {
    const id = await start("floating");
    expect((await api.post("/api/tick", {})).body.count, "the spawn advance").toBe(1);

    const waiting = await api.get("/api/instances?phase=children");
    expect(waiting.body.items.map((r: { id: string }) => r.id)).toContain(id);
    const detail = (await api.get(`/api/instances/${id}/detail`)).body;
    const childId = detail.state._children.spawn;
    expect(typeof childId, "state._children maps the task to its child").toBe("string");

    const roots = (await api.get("/api/instances?process=kid")).body.items;
    expect(roots, "children are not roots: the default list shows roots only").toEqual([]);
    const withChildren = (await api.get("/api/instances?process=kid&children=true")).body.items;
    expect(withChildren.find((r: { id: string }) => r.id === childId)).toMatchObject({
      parent_id: id,
      process: "kid",
      version: 2,
    });

    const refused = await api.post(`/api/instances/${childId}/pause`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain(id);

    await runToEnd(id);
    const tree = (await api.get(`/api/instances/${id}/logs`)).body.items;
    expect(
      tree.some((l: { instance_id: string }) => l.instance_id === childId),
      "a root's logs include its children's",
    ).toBe(true);
    const flat = (await api.get(`/api/instances/${id}/logs?flat=true`)).body.items;
    expect(flat.every((l: { instance_id: string }) => l.instance_id === id)).toBe(true);
  });
});
