// The operator extensions of GET/POST /instances and GET /external-tasks (docs/api.md
// "Extensions") on a real baton-api: business keys, the parent filter, counts and the
// waiting-task list. The engine runs only on /tick (--poll 0), so every state is deliberate.
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, deploy, start } from "../../support/instances-fixtures.js";

let server: TestServer;
let api: Api;

const approval = {
  name: "approval",
  input_schema: { type: "object", properties: { n: { type: "integer" } } },
  tasks: [{ id: "approve", action: { type: "external", input: { n: "$: input.n" } } }],
};
const parent = (name: string) => ({
  name,
  tasks: [{ id: "spawn", action: { type: "child", name: "approval", input: { n: 1 } } }],
});

const parents: string[] = [];
const keyed: string[] = [];
/** Just after the setup's last start: counts bounded by it ignore instances later tests start. */
let setupEnd = 0;

async function tick(times = 3): Promise<void> {
  for (let i = 0; i < times; i++) expect((await api.post("/api/tick", {})).status).toBe(200);
}

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
  await deploy(api, approval);
  await deploy(api, parent("parent"));
  await deploy(api, { name: "plain", tasks: [{ id: "only" }] });
  for (let i = 0; i < 2; i++) parents.push((await start(api, { process: "parent" })).id);
  keyed.push((await start(api, { process: "plain", key: "A-1001" })).id);
  keyed.push((await start(api, { process: "plain", key: "A-1002" })).id);
  keyed.push((await start(api, { process: "plain", key: "A-1001" })).id);
  setupEnd = Date.parse((await api.get(`/api/instances/${keyed[2]}`)).body.created_at) + 1;
  await tick();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const childOf = async (id: string): Promise<string> => {
  const res = await api.get(`/api/instances?parent_id=${id}`);
  expect(res.status, res.text).toBe(200);
  expect(res.body.items).toHaveLength(1);
  return res.body.items[0].id;
};

describe("business key", () => {
  it("is stored and shown on the status view, the detail view and list rows; null when none was given", async () => {
    const status = await api.get(`/api/instances/${keyed[1]}`);
    expect(status.body.key).toBe("A-1002");
    expect((await api.get(`/api/instances/${keyed[1]}/detail`)).body.key).toBe("A-1002");
    const row = (await api.get("/api/instances?process=plain&limit=100")).body.items.find(
      (item: { id: string }) => item.id === keyed[1],
    );
    expect(row.key).toBe("A-1002");
    expect((await api.get(`/api/instances/${parents[0]}`)).body.key).toBeNull();
  });

  it("filters GET /instances exactly, newest first, and does not deduplicate starts", async () => {
    const res = await api.get("/api/instances?key=A-1001");
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.map((item: { id: string }) => item.id)).toEqual([keyed[2], keyed[0]]);
    expect((await api.get("/api/instances?key=A-100")).body.items, "exact, not a prefix").toEqual([]);
  });

  it("refuses an empty key and one over 200 characters, naming the field", async () => {
    for (const key of ["", "k".repeat(201)]) {
      const res = await api.post("/api/instances", { process: "plain", key });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("invalid");
      expect(res.body.fields.map((field: { path: string }) => field.path)).toEqual(["body.key"]);
    }
    expect((await api.post("/api/instances", { process: "plain", key: "k".repeat(200) })).status).toBe(200);
    await tick(); // it completes, so it is not among the running instances counted below
  });

  it("is written to the instance.started log entry", async () => {
    const logs = await api.get(`/api/instances/${keyed[1]}/logs?limit=100`);
    const started = logs.body.items.find((entry: { event: string }) => entry.event === "instance.started");
    expect(started.data).toMatchObject({ key: "A-1002" });
  });
});

describe("GET /instances?parent_id=", () => {
  it("lists one parent's children only, with the other filters and pagination", async () => {
    const [a, b] = [await childOf(parents[0]!), await childOf(parents[1]!)];
    expect(a).not.toBe(b);
    const row = (await api.get(`/api/instances?parent_id=${parents[0]}`)).body.items[0];
    expect(row).toMatchObject({ parent_id: parents[0], root_id: parents[0], process: "approval", key: null });
    expect((await api.get(`/api/instances?parent_id=${parents[0]}&status=completed`)).body.items).toEqual([]);
    const page = await api.get(`/api/instances?parent_id=${parents[0]}&limit=1`);
    expect(page.body.page).toMatchObject({ size: 1, items_before: 0, items_after: 0 });
  });

  it("answers an empty page for an instance without children, and 400 for a malformed id", async () => {
    expect((await api.get(`/api/instances?parent_id=${keyed[0]}`)).body.items).toEqual([]);
    const bad = await api.get("/api/instances?parent_id=nope");
    expect(bad.status).toBe(400);
    expect(bad.body.fields[0].path).toBe("query.parent_id");
  });
});

describe("GET /instances/counts", () => {
  it("groups the roots by status by default", async () => {
    const res = await api.get(`/api/instances/counts?created_before=${setupEnd}`);
    expect(res.status, res.text).toBe(200);
    // 2 parents (running, waiting on children), 3 plain ones (completed).
    expect(res.body).toEqual({
      by: ["status"],
      groups: [
        { status: "completed", count: 3 },
        { status: "running", count: 2 },
      ],
      total: 5,
      truncated: false,
    });
  });

  it("groups by two dimensions, with the list filters, children included on request", async () => {
    const res = await api.get("/api/instances/counts?by=process,phase&children=true&status=running");
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      by: ["process", "phase"],
      groups: [
        { process: "approval", phase: "external", count: 2 },
        { process: "parent", phase: "children", count: 2 },
      ],
      total: 4,
      truncated: false,
    });
    const keyedOnly = await api.get("/api/instances/counts?by=error_code&key=A-1001");
    expect(keyedOnly.body.groups).toEqual([{ error_code: null, count: 2 }]);
    const children = await api.get(`/api/instances/counts?parent_id=${parents[1]}`);
    expect(children.body.groups).toEqual([{ status: "running", count: 1 }]);
  });

  it("refuses an unknown or repeated dimension and a third one", async () => {
    for (const by of ["nope", "status,status", "status,process,phase"]) {
      const res = await api.get(`/api/instances/counts?by=${by}`);
      expect(res.status, by).toBe(400);
      expect(res.body.fields[0].path, by).toBe("query.by");
    }
  });
});

describe("GET /external-tasks", () => {
  it("lists every waiting task oldest first, claimed or not, without claiming", async () => {
    const children = [await childOf(parents[0]!), await childOf(parents[1]!)];
    const res = await api.get("/api/external-tasks");
    expect(res.status, res.text).toBe(200);
    const order = (row: { waiting_since: string; instance_id: string }) => `${row.waiting_since} ${row.instance_id}`;
    const listed = res.body.items.map(order);
    expect(listed, "oldest park first, ties by instance id").toEqual([...listed].sort());
    const byInstance = (a: { instance_id: string }, b: { instance_id: string }) =>
      a.instance_id.localeCompare(b.instance_id);
    expect([...res.body.items].sort(byInstance)).toEqual(
      children
        .map((id, i) => ({
          instance_id: id,
          root_id: parents[i],
          key: null,
          process: "approval",
          version: 1,
          task: "approve",
          status: "running",
          external_input: { n: 1 },
          waiting_since: expect.any(String),
          task_epoch: 1,
          deadline: null,
          claimed_by: null,
          claim_expires: null,
        }))
        .sort(byInstance),
    );
    expect((await api.get("/api/external-tasks")).body.items, "listing claims nothing").toHaveLength(2);
  });

  it("shows a live claim and filters by claimed, process, task and instance; pages with cursors", async () => {
    const claim = await api.post("/api/external-tasks/claim", { worker_id: "w-7", process: "approval" });
    expect(claim.body.items).toHaveLength(1);
    const claimedRows = (await api.get("/api/external-tasks?claimed=true")).body.items;
    expect(claimedRows).toHaveLength(1);
    expect(claimedRows[0]).toMatchObject({ claimed_by: "w-7", claim_expires: claim.body.items[0].claim_expires });
    const free = (await api.get("/api/external-tasks?claimed=false")).body.items;
    expect(free).toHaveLength(1);
    expect(free[0].instance_id).not.toBe(claimedRows[0].instance_id);
    expect((await api.get("/api/external-tasks?process=parent")).body.items).toEqual([]);
    expect((await api.get("/api/external-tasks?process=approval&task=approve&version=1")).body.items).toHaveLength(2);
    const one = (await api.get(`/api/external-tasks?instance_id=${free[0].instance_id}`)).body.items;
    expect(one.map((row: { instance_id: string }) => row.instance_id)).toEqual([free[0].instance_id]);
    const first = await api.get("/api/external-tasks?limit=1");
    expect(first.body.page).toMatchObject({ size: 1, items_after: 1, sort: "waiting_since", order: "asc" });
    const second = await api.get(`/api/external-tasks?limit=1&after=${first.body.page.next_cursor}`);
    expect(second.body.items[0].instance_id).not.toBe(first.body.items[0].instance_id);
    expect(second.body.page).toMatchObject({ items_before: 1, items_after: 0, next_cursor: null });
  });

  it("drops a task once it is resolved", async () => {
    const claimed = (await api.get("/api/external-tasks?claimed=false")).body.items[0];
    const signal = await api.post("/api/external-tasks/signal", {
      instance_id: claimed.instance_id,
      task: "approve",
      result: {},
    });
    expect(signal.status, signal.text).toBe(200);
    const left = (await api.get("/api/external-tasks")).body.items;
    expect(left.map((row: { instance_id: string }) => row.instance_id)).not.toContain(claimed.instance_id);
  });
});
