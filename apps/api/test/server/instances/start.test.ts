import { LosslessNumber } from "@baton/expr";
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, bare, deploy, shop, start, UUID_PATTERN } from "../../support/instances-fixtures.js";

// POST /instances, GET /instances/{id} (status view), GET /instances/{id}/detail and
// GET /objects/{ref}, over real HTTP. The engine never runs here (--poll 0, no /tick), so
// every instance stays exactly as the start wrote it.

let server: TestServer;
let api: Api;

const THRESHOLD = 256;
const RESOLVE_LIMIT = 1000;

beforeAll(async () => {
  server = await startServer({
    args: ["--poll", "0", "--object-threshold", String(THRESHOLD), "--object-resolve-limit", String(RESOLVE_LIMIT)],
  });
  api = client(server.url);
  await deploy(api, shop());
  await deploy(api, { ...shop(), tasks: [{ id: "first" }, ...shop().tasks] }); // version 2
  await deploy(api, bare());
});
afterAll(async () => {
  await server?.stop();
});

async function countAll(): Promise<number> {
  const res = await api.get("/api/instances?children=true&limit=100");
  expect(res.status, res.text).toBe(200);
  return res.body.page.items_before + res.body.items.length + res.body.page.items_after;
}

describe("POST /api/instances", () => {
  it("starts the latest version when version is omitted and answers {id, process, version, status}", async () => {
    const res = await api.post("/api/instances", { process: "shop", input: { order: "A-1" } });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["id", "process", "status", "version"]);
    expect(res.body).toMatchObject({ process: "shop", version: 2, status: "running" });
    expect(res.body.id).toMatch(UUID_PATTERN);
  });

  it("starts an explicit older version on that version's first task", async () => {
    const started = await start(api, { process: "shop", version: 1, input: { order: "A-2" } });
    expect(started.version).toBe(1);
    const view = await api.get(`/api/instances/${started.id}`);
    expect(view.body.task, "a new instance sits on tasks[0] of its own version").toBe("check");
    const v2 = await start(api, { process: "shop", input: { order: "A-3" } });
    expect((await api.get(`/api/instances/${v2.id}`)).body.task).toBe("first");
  });

  it("starts a version registered after this server last started the process", async () => {
    const name = "versioned_later";
    await deploy(api, bare(name));
    expect((await start(api, { process: name })).version).toBe(1);
    // Version 2 arrives after this server started version 1 (on another replica it is the same:
    // the start statement, not this process, decides which version is the latest).
    await deploy(api, { ...bare(name), tasks: [{ id: "later" }] });
    const started = await start(api, { process: name });
    expect(started.version).toBe(2);
    expect((await api.get(`/api/instances/${started.id}`)).body.task).toBe("later");
  });

  it("answers 404 naming the process when it is not registered", async () => {
    const res = await api.post("/api/instances", { process: "no-such-process" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: "not_found", error: 'process "no-such-process" is not registered' });
  });

  it("answers 404 naming the latest version when the version does not exist", async () => {
    const res = await api.post("/api/instances", { process: "shop", version: 7, input: { order: "A" } });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
    expect(res.body.error).toBe('process "shop" has no version 7; latest is 2');
  });

  it("answers 400 with a field per input problem, paths starting at input", async () => {
    const before = await countAll();
    const res = await api.post("/api/instances", { process: "shop", input: { qty: "many", customer: { email: "x" } } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid");
    const paths = (res.body.fields as Array<{ path: string }>).map((f) => f.path).sort();
    expect(paths, "the missing required field is named by its own path").toEqual([
      "input.customer.email",
      "input.order",
      "input.qty",
    ]);
    expect(res.body.error).toContain('process "shop" version 2');
    expect(await countAll(), "bad input never leaves an instance behind").toBe(before);
  });

  it("answers 400 saying the process declares no input when input is given to a process without input_schema", async () => {
    const before = await countAll();
    const res = await api.post("/api/instances", { process: "bare", input: { x: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("declares no input");
    expect(res.body.fields).toEqual([expect.objectContaining({ path: "input" })]);
    expect(await countAll()).toBe(before);
  });

  it("accepts an empty or absent input for a process without input_schema", async () => {
    const a = await start(api, { process: "bare" });
    const b = await start(api, { process: "bare", input: {} });
    for (const id of [a.id, b.id]) expect((await api.get(`/api/instances/${id}/detail`)).body.state.input).toEqual({});
  });

  it("refuses a body that is not an object of the declared fields before looking anything up", async () => {
    expect((await api.post("/api/instances", { process: "shop", input: { order: "A" }, extra: 1 })).status).toBe(400);
    expect((await api.post("/api/instances", { input: {} })).status).toBe(400);
    expect((await api.post("/api/instances", { process: "shop", version: 0 })).status).toBe(400);
  });

  it("writes every one of many concurrent starts, each with its own id", async () => {
    const before = await countAll();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => api.post("/api/instances", { process: "shop", input: { order: `C-${i}` } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(30);
    expect(await countAll()).toBe(before + 30);
  });

  it("stores the conformed input: defaults filled, undeclared keys stripped, exact numbers kept", async () => {
    const amount = "12345678901234567890.000000000000000000001";
    const started = await start(api, {
      process: "shop",
      input: { order: "A-9", amount: new LosslessNumber(amount), stray: true },
    });
    const detail = await api.get(`/api/instances/${started.id}/detail`);
    expect(detail.status).toBe(200);
    expect(detail.text, "the number survives input → state byte for byte").toContain(`"amount":${amount}`);
    expect(detail.body.state.input.qty, "default filled").toBe(1);
    expect(detail.body.state.input.stray, "undeclared key stripped").toBeUndefined();
  });
});

describe("GET /api/instances/{id}", () => {
  it("shows exactly the status-view fields of a running instance", async () => {
    const started = await start(api, { process: "shop", input: { order: "S-1" } });
    const res = await api.get(`/api/instances/${started.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: started.id,
      process: "shop",
      version: 2,
      status: "running",
      task: "first",
      retry_count: 0,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.stringMatching(/Z$/),
      wake_at: expect.any(String),
      key: null,
    });
    expect(res.body.created_at).toBe(res.body.updated_at);
    const age = Date.now() - Date.parse(res.body.created_at);
    expect(age, "created_at comes from the service clock, in UTC").toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(60_000);
  });

  it("answers 404 for a well-formed id that does not exist", async () => {
    const res = await api.get("/api/instances/019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      code: "not_found",
      error: 'instance "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55" does not exist',
    });
  });

  it("answers 400 for an id that is not a UUID, on every instance endpoint", async () => {
    for (const path of ["/api/instances/nope", "/api/instances/nope/detail", "/api/instances/12345/logs"]) {
      const res = await api.get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.code).toBe("invalid");
      expect(res.body.error).toContain("UUID");
    }
  });

  it("accepts an upper-case id", async () => {
    const started = await start(api, { process: "bare" });
    const res = await api.get(`/api/instances/${started.id.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(started.id);
  });
});

describe("GET /api/instances/{id}/detail", () => {
  it("adds the state verbatim, the epochs and the tree links of a new root", async () => {
    const started = await start(api, { process: "shop", version: 1, input: { order: "D-1" } });
    const res = await api.get(`/api/instances/${started.id}/detail`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: started.id,
      process: "shop",
      version: 1,
      status: "running",
      task: "check",
      retry_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      wake_at: expect.any(String),
      key: null,
      parent_id: null,
      root_id: started.id,
      phase: null,
      state: { input: { order: "D-1", qty: 1 }, outputs: {}, _children: {} },
      lease_epoch: 0,
      task_epoch: 1,
      parent_task_epoch: 0,
      next_replayable: true,
      external_claim_epoch: 0,
      objects: [],
    });
  });

  it("answers 404 for a well-formed id that does not exist", async () => {
    const res = await api.get("/api/instances/019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c56/detail?resolve=true");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
  });

  it("rejects an unknown query parameter and a non-boolean resolve", async () => {
    const started = await start(api, { process: "bare" });
    expect((await api.get(`/api/instances/${started.id}/detail?resolved=true`)).status).toBe(400);
    expect((await api.get(`/api/instances/${started.id}/detail?resolve=maybe`)).status).toBe(400);
  });
});

describe("externalized objects", () => {
  const small = "s".repeat(500); // over the threshold, within the resolve limit
  const large = "L".repeat(3000); // over the resolve limit

  it("lists each large value under objects with its path in the response, and keeps a placeholder in the state", async () => {
    const started = await start(api, { process: "shop", input: { order: "O-1", note: large } });
    const res = await api.get(`/api/instances/${started.id}/detail`);
    expect(res.body.state.input.order).toBe("O-1");
    expect(res.body.state.input.note).toEqual({ $ref: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(res.body.objects).toEqual([
      { path: ["state", "input", "note"], ref: res.body.state.input.note.$ref, size: large.length + 2 },
    ]);
    const object = await api.get(`/api/objects/${res.body.state.input.note.$ref}`);
    expect(object.status).toBe(200);
    expect(object.headers.get("content-type")).toContain("application/json");
    expect(object.body).toBe(large);
  });

  it("with resolve=true splices objects within the limit back and lists only those left out", async () => {
    const started = await start(api, {
      process: "shop",
      input: { order: "O-2", note: large, customer: { email: small } },
    });
    const plain = await api.get(`/api/instances/${started.id}/detail`);
    expect(plain.body.objects.map((o: { path: string[] }) => o.path.join("."))).toEqual(
      expect.arrayContaining(["state.input.note", "state.input.customer.email"]),
    );
    const resolved = await api.get(`/api/instances/${started.id}/detail?resolve=true`);
    expect(resolved.status).toBe(200);
    expect(resolved.body.state.input.customer).toEqual({ email: small });
    expect(resolved.body.state.input.note).toEqual({ $ref: expect.any(String) });
    expect(resolved.body.objects).toEqual([
      { path: ["state", "input", "note"], ref: resolved.body.state.input.note.$ref, size: large.length + 2 },
    ]);
    const off = await api.get(`/api/instances/${started.id}/detail?resolve=false`);
    expect(off.body.objects).toHaveLength(2);
  });

  it("shows user data shaped like a placeholder as it is, and never lists it", async () => {
    const lookalike = { $ref: "f".repeat(64) };
    const started = await start(api, { process: "shop", input: { order: "O-6", meta: lookalike } });
    for (const path of [`/api/instances/${started.id}/detail`, `/api/instances/${started.id}/detail?resolve=true`]) {
      const res = await api.get(path);
      expect(res.body.state.input.meta, path).toEqual(lookalike);
      expect(res.body.objects, path).toEqual([]);
    }
  });

  it("stores one object for a value that several instances share", async () => {
    const a = await start(api, { process: "shop", input: { order: "O-3", note: large } });
    const b = await start(api, { process: "shop", input: { order: "O-4", note: large } });
    const ra = (await api.get(`/api/instances/${a.id}/detail`)).body.state.input.note.$ref;
    const rb = (await api.get(`/api/instances/${b.id}/detail`)).body.state.input.note.$ref;
    expect(ra, "content-addressed").toBe(rb);
  });

  it("returns an object's exact numbers unchanged", async () => {
    const exact = "0.1000000000000000000000000000001";
    const lines = `[${Array.from({ length: 20 }, () => exact).join(",")}]`;
    // A raw body, so the exact decimals reach the server as written.
    const res = await api.post("/api/instances", `{"process":"shop","input":{"order":"O-5","lines":${lines}}}`);
    expect(res.status, res.text).toBe(200);
    const detail = await api.get(`/api/instances/${res.body.id}/detail`);
    expect(detail.body.objects.map((o: { path: string[] }) => o.path)).toEqual([["state", "input", "lines"]]);
    const object = await api.get(`/api/objects/${detail.body.state.input.lines.$ref}`);
    expect(object.text).toBe(lines);
    const resolved = await api.get(`/api/instances/${res.body.id}/detail?resolve=true`);
    expect(resolved.text).toContain(`"lines":${lines}`);
  });

  it("answers 400 for a ref that is not 64 hex digits and 404 for an unknown one", async () => {
    const bad = await api.get("/api/objects/xyz");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("64 hex");
    const missing = await api.get(`/api/objects/${"0".repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("not_found");
  });
});
