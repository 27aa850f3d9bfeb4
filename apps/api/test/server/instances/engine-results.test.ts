import {
  client,
  json,
  request,
  startServer,
  startUpstream,
  type TestServer,
  type Upstream,
  type SharedDatabase,
  sharedDatabase,
} from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, bootstrapToken } from "../../support/auth-fixtures.js";
import { type Api, deploy, start } from "../../support/instances-fixtures.js";

// The read side over instances the engine moved (POST /tick on a --poll 0 server): outputs
// in the status view, logs the engine wrote, filters on settled statuses and error codes,
// externalized values, and times taken from the service clock.

let server: TestServer;
let api: Api;
let upstream: Upstream;

const tick = async (advanceMs?: number) => {
  const res = await api.post("/api/tick", advanceMs === undefined ? {} : { advance_ms: advanceMs });
  expect(res.status, res.text).toBe(200);
  return res.body.count as number;
};

beforeAll(async () => {
  upstream = await startUpstream((r, res) =>
    r.path.startsWith("/fail") ? json(res, 500, { error: "boom" }) : json(res, 200, { echoed: r.path }),
  );
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
  await deploy(api, {
    name: "route",
    input_schema: {
      type: "object",
      properties: { order: { type: "string" }, note: { type: "string" } },
      required: ["order"],
    },
    tasks: [{ id: "check" }, { id: "ship", output: { order: "$: input.order" } }],
    output: { shipped: "$: outputs.ship.order", note: "$: input.note" },
  });
  await deploy(api, {
    name: "call",
    tasks: [{ id: "hit", action: { type: "fetch", url: `${upstream.url}/fail`, method: "get" } }],
  });
});
afterAll(async () => {
  await server?.stop();
  await upstream?.close();
});

describe("instances the engine completed", () => {
  it("show the process output in the status view and settle as completed", async () => {
    const started = await start(api, { process: "route", input: { order: "E-1", note: "n" } });
    await tick();
    const view = await api.get(`/api/instances/${started.id}`);
    expect(view.body).toMatchObject({ status: "completed", task: "ship", output: { shipped: "E-1", note: "n" } });
    expect(view.body.error_code).toBeUndefined();
    expect(Date.parse(view.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(view.body.created_at));
    const detail = await api.get(`/api/instances/${started.id}/detail`);
    expect(detail.body.state.outputs).toEqual({ ship: { order: "E-1" } });
    expect(detail.body.output).toEqual({ shipped: "E-1", note: "n" });
    expect(ids(await api.get("/api/instances?process=route&status=completed"))).toContain(started.id);
  });

  it("log the start and the run, newest first, with level filtering", async () => {
    const started = await start(api, { process: "route", input: { order: "E-2" } });
    await tick();
    const all = await api.get(`/api/instances/${started.id}/logs?level=debug&limit=100`);
    const events = all.body.items.map((i: { event: string }) => i.event);
    expect(events.at(-1), "oldest last").toBe("instance.started");
    expect(events[0]).toBe("instance.completed");
    const startedEntry = all.body.items.at(-1);
    expect(startedEntry).toMatchObject({
      instance_id: started.id,
      level: "info",
      task: "check",
      actor: null,
      data: { process: "route", version: 1 },
    });
    const info = await api.get(`/api/instances/${started.id}/logs?level=info`);
    expect(info.body.items.every((i: { level: string }) => i.level !== "debug")).toBe(true);
  });

  it("splice an externalized output back in the status view and list it in the detail", async () => {
    const note = "N".repeat(4000);
    const started = await start(api, { process: "route", input: { order: "E-3", note } });
    await tick();
    const view = await api.get(`/api/instances/${started.id}`);
    expect(view.body.output).toEqual({ shipped: "E-3", note });
    const detail = await api.get(`/api/instances/${started.id}/detail`);
    const paths = detail.body.objects.map((o: { path: string[] }) => o.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["state.input.note", "output.note"]));
    const resolved = await api.get(`/api/instances/${started.id}/detail?resolve=true`);
    expect(resolved.body.objects).toEqual([]);
    expect(resolved.body.output.note).toBe(note);
  });
});

describe("instances the engine failed", () => {
  it("show error_code and error_message and are found by error_code and status", async () => {
    const started = await start(api, { process: "call" });
    await tick();
    const view = await api.get(`/api/instances/${started.id}`);
    expect(view.body).toMatchObject({ status: "failed", task: "hit", error_code: "http.500" });
    expect(typeof view.body.error_message).toBe("string");
    expect(view.body.output).toBeUndefined();
    expect(ids(await api.get("/api/instances?error_code=http.500"))).toEqual([started.id]);
    expect(ids(await api.get("/api/instances?status=failed,raised&process=call"))).toEqual([started.id]);
    expect(ids(await api.get("/api/instances?status=completed&process=call"))).toEqual([]);
    const errors = await api.get(`/api/instances/${started.id}/logs?level=warn`);
    expect(errors.body.items.length).toBeGreaterThan(0);
    expect(errors.body.items.every((i: { level: string }) => i.level === "warn" || i.level === "error")).toBe(true);
  });
});

describe("times come from the service clock", () => {
  it("stamps instances started after /tick advance_ms in the shifted time, which the time filters see", async () => {
    const before = await start(api, { process: "route", input: { order: "C-1" } });
    await tick(3_600_000);
    const after = await start(api, { process: "route", input: { order: "C-2" } });
    const created = Date.parse((await api.get(`/api/instances/${after.id}`)).body.created_at);
    expect(created - Date.now(), "an hour ahead of the real clock").toBeGreaterThan(3_500_000);
    const later = await api.get(`/api/instances?process=route&created_after=${Date.now() + 1_800_000}`);
    expect(ids(later)).toEqual([after.id]);
    const earlier = ids(await api.get(`/api/instances?process=route&created_before=${Date.now() + 1_800_000}`));
    expect(earlier).toContain(before.id);
    expect(earlier).not.toContain(after.id);
    const logs = await api.get(`/api/instances/${after.id}/logs?created_after=${Date.now() + 1_800_000}`);
    expect(logs.body.items.map((i: { event: string }) => i.event)).toEqual(["instance.started"]);
  });
});

describe("the actor of a start", () => {
  let database: SharedDatabase;
  let authed: TestServer;
  let admin: string;
  let ops: Api;
  let opsId: string;

  beforeAll(async () => {
    database = await sharedDatabase();
    admin = await bootstrapToken(database, "instances admin", "admin");
    authed = await startServer({ database: database.location, args: ["--auth", "token", "--poll", "0"] });
    const created = await request(
      authed.url,
      "POST",
      "/api/tokens",
      { label: "ops", perms: ["operate", "read", "deploy"] },
      bearer(admin),
    );
    expect(created.status, created.text).toBe(200);
    ops = client(authed.url, bearer(created.body.token));
    opsId = created.body.id;
    await deploy(ops, { name: "who", tasks: [{ id: "one" }] });
  });
  afterAll(async () => {
    await authed?.stop();
    await database?.dispose();
  });

  it("is recorded on instance.started as token:<id>", async () => {
    const started = await start(ops, { process: "who" });
    const logs = await ops.get(`/api/instances/${started.id}/logs`);
    expect(logs.body.items.find((i: { event: string }) => i.event === "instance.started").actor).toBe(`token:${opsId}`);
  });

  it("needs operate to start and read to look", async () => {
    const started = await start(ops, { process: "who" });
    const readOnly = await request(
      authed.url,
      "POST",
      "/api/tokens",
      { label: "reader", perms: ["read"] },
      bearer(admin),
    );
    const reader = client(authed.url, bearer(readOnly.body.token));
    expect((await reader.post("/api/instances", { process: "who" })).status).toBe(403);
    expect((await reader.get(`/api/instances/${started.id}`)).status).toBe(200);
    expect((await client(authed.url).get(`/api/instances/${started.id}`)).status, "no credential").toBe(401);
  });

  it("lets a worker fetch an object but not read instances", async () => {
    const note = "W".repeat(3000);
    await deploy(ops, {
      name: "big",
      input_schema: { type: "object", properties: { note: { type: "string" } } },
      tasks: [{ id: "one" }],
    });
    const started = await start(ops, { process: "big", input: { note } });
    const detail = await ops.get(`/api/instances/${started.id}/detail`);
    const ref = detail.body.objects[0].ref as string;
    const created = await request(
      authed.url,
      "POST",
      "/api/tokens",
      { label: "worker", perms: ["worker"] },
      bearer(admin),
    );
    const worker = client(authed.url, bearer(created.body.token));
    const object = await worker.get(`/api/objects/${ref}`);
    expect(object.status, object.text).toBe(200);
    expect(object.body).toBe(note);
    expect((await worker.get(`/api/instances/${started.id}`)).status).toBe(403);
  });
});

const ids = (res: { body: { items: Array<{ id: string }> } }) => res.body.items.map((i) => i.id);
