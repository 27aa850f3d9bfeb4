import { stringifyJson } from "@baton/expr";
import {
  client,
  json,
  startServer,
  startUpstream,
  type TestServer,
  type Upstream,
  type SharedDatabase,
  sharedDatabase,
  createGate,
} from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openDatabase } from "../../../src/storage/db.js";
import { freshInstanceRow } from "../../../src/engine/starts/fresh-row.js";
import { instances } from "../../../src/storage/schema/index.js";
import { bearer, bootstrapToken } from "../../support/auth-fixtures.js";
import { start as startInstance } from "../../support/instances-fixtures.js";

// The binary on PGlite (or PostgreSQL when DATABASE_URL is set), with token auth so the
// actor of an upgrade is known. A child row is seeded before the server opens the database:
// the engine cannot spawn children yet.
vi.setConfig({ testTimeout: 120_000 });

const ROOT = "019a3c1e-0000-7000-8000-00000000a001";
const CHILD = "019a3c1e-0000-7000-8000-00000000a002";

let database: SharedDatabase;
let server: TestServer;
let up: Upstream;
let api: ReturnType<typeof client>;
/** POST /tick needs admin. */
let adminApi: ReturnType<typeof client>;
let actor: string;
/** Holds calls to /hold: a task in flight until the test releases it. */
const gate = createGate();

const fetchTask = (id: string, path: string, extra: Record<string, unknown> = {}) => ({
  id,
  action: { type: "fetch", url: `${up.url}${path}` },
  ...extra,
});

beforeAll(async () => {
  up = await startUpstream((req, res) => {
    if (req.path.startsWith("/hold")) return gate.hold(res, { held: true });
    json(res, 200, { path: req.path, amount: 5 });
  });
  database = await sharedDatabase();
  const admin = await bootstrapToken(database, "upgrade admin", "admin");
  const db = await openDatabase(database.connection);
  try {
    const state = stringifyJson({ input: {}, outputs: {} });
    const base = { process: "tree", version: 1, task: "start", state, now: Date.now() };
    // Seeded parked (wake_at null): the tree is only ever moved by the upgrade under test.
    await db.db.insert(instances).values([
      { ...freshInstanceRow({ ...base, id: ROOT }), phase: "children", wakeAt: null },
      { ...freshInstanceRow({ ...base, id: CHILD, rootId: ROOT, parentId: ROOT, spawnTask: "start" }), wakeAt: null },
    ]);
  } finally {
    await db.close();
  }
  server = await startServer({ database: database.location, args: ["--auth", "token", "--poll", "0"] });
  adminApi = client(server.url, bearer(admin));
  const created = await adminApi.post("/api/tokens", { label: "deployer", perms: ["deploy", "read", "operate"] });
  expect(created.status, created.text).toBe(200);
  actor = `token:${created.body.id}`;
  api = client(server.url, bearer(created.body.token));
  for (const def of [
    { name: "flow", tasks: [fetchTask("one", "/v1/one"), fetchTask("two", "/v1/two")] },
    {
      name: "flow",
      tasks: [fetchTask("one", "/v1/one"), fetchTask("two", "/v2/two"), fetchTask("three", "/v2/three")],
    },
    { name: "flow", tasks: [fetchTask("one", "/v1/one"), fetchTask("three", "/v3/three")] },
    { name: "held", tasks: [fetchTask("one", "/hold"), fetchTask("two", "/ok")] },
    { name: "held", tasks: [fetchTask("one", "/hold"), fetchTask("two", "/ok2")] },
    {
      name: "typed",
      tasks: [
        {
          id: "charge",
          action: {
            type: "fetch",
            url: `${up.url}/charge`,
            result_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
          },
        },
        { id: "ship", action: { type: "fetch", url: `${up.url}/ship`, body: { ref: "$: outputs.charge.path" } } },
      ],
    },
    {
      name: "typed",
      tasks: [
        {
          id: "charge",
          action: {
            type: "fetch",
            url: `${up.url}/charge`,
            result_schema: {
              type: "object",
              properties: { path: { type: "string" }, amount: { type: "number" } },
              required: ["path", "amount"],
            },
          },
        },
        {
          id: "ship",
          action: {
            type: "fetch",
            url: `${up.url}/ship`,
            body: { ref: "$: outputs.charge.path", amount: "$: outputs.charge.amount" },
          },
        },
      ],
    },
  ]) {
    const res = await api.put("/api/definitions", def);
    expect(res.status, res.text).toBe(200);
  }
});

afterAll(async () => {
  gate.releaseAll();
  await server?.stop();
  await up?.close();
  await database?.dispose();
});

const start = async (process: string, version?: number) =>
  (await startInstance(api, version === undefined ? { process } : { process, version })).id;

const tick = async () => (await adminApi.post("/api/tick", {})).body;
const upgrade = (id: string, from_version: number, to_version: number) =>
  api.post(`/api/instances/${id}/upgrade`, { from_version, to_version });

describe("POST /instances/{id}/upgrade", () => {
  it("moves a paused instance to the new version; resumed, it runs the new version's tasks", async () => {
    const id = await start("flow", 1);
    await tick();
    expect((await api.get(`/api/instances/${id}`)).body.task).toBe("two");
    expect((await api.post(`/api/instances/${id}/pause`)).status).toBe(200);
    const epochBefore = (await api.get(`/api/instances/${id}/detail`)).body.lease_epoch;

    const res = await upgrade(id, 1, 2);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      upgraded: true,
      moves: [{ instance_id: id, process: "flow", from_version: 1, to_version: 2, task: "two" }],
    });
    expect((await api.get(`/api/instances/${id}`)).body).toMatchObject({ version: 2, status: "paused" });
    expect(
      (await api.get(`/api/instances/${id}/detail`)).body.lease_epoch,
      "an upgrade fences out any worker still holding an expired lease computed under the old version",
    ).toBe(epochBefore + 1);

    expect((await api.post(`/api/instances/${id}/resume`)).status).toBe(200);
    await tick();
    await tick();
    expect((await api.get(`/api/instances/${id}`)).body.status).toBe("completed");
    const paths = up.requests.filter((r) => r.headers["x-baton-instance-id"] === id).map((r) => r.path);
    expect(paths, "the engine reads the definition by the row's version at each claim").toEqual([
      "/v1/one",
      "/v2/two",
      "/v2/three",
    ]);

    const logs = (await api.get(`/api/instances/${id}/logs`)).body.items;
    const upgraded = logs.find((l: any) => l.event === "instance.upgraded");
    expect(upgraded).toMatchObject({ actor, task: "two", data: { from_version: 1, to_version: 2 } });
  });

  it("answers upgraded false with null moves when from_version equals to_version", async () => {
    const id = await start("flow", 1);
    const res = await upgrade(id, 1, 1);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ upgraded: false, moves: null });
    expect((await api.get(`/api/instances/${id}`)).body.version).toBe(1);
  });

  it("refuses 409 when the tree does not run from_version", async () => {
    const id = await start("flow", 2);
    const res = await upgrade(id, 1, 3);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("conflict");
    expect(res.body.error).toContain("runs version 2");
  });

  it("refuses 409 when the tree is not live", async () => {
    const id = await start("flow", 1);
    expect((await api.post(`/api/instances/${id}/cancel`)).status).toBe(200);
    const res = await upgrade(id, 1, 2);
    expect(res.status).toBe(409);
    expect(res.body.error).toContain("cancelled");
  });

  it("refuses 409 while a task is in flight, and upgrades once it settles", async () => {
    const id = await start("held", 1);
    const running = adminApi.post("/api/tick", {});
    await gate.whenParked();
    const res = await upgrade(id, 1, 2);
    expect(res.status).toBe(409);
    expect(res.body.error).toContain("a task is in flight; retry when it settles");
    gate.releaseOne();
    await running;
    const after = await upgrade(id, 1, 2);
    expect(after.status, after.text).toBe(200);
    expect(after.body.moves[0]).toMatchObject({ task: "two", to_version: 2 });
  });

  it("refuses 409 naming the task when the new version dropped the task the instance sits on", async () => {
    const id = await start("flow", 2);
    await tick();
    const res = await upgrade(id, 2, 3);
    expect(res.status).toBe(409);
    expect(res.body.error).toContain('task "two"');
    expect(res.body.error).toContain("does not exist in version 3");
    expect((await api.get(`/api/instances/${id}`)).body.version, "nothing moved").toBe(2);
  });

  it("refuses 409 when the new version reads a field the old one never stored, but not before it was stored", async () => {
    const waiting = await start("typed", 1);
    const sitting = await start("typed", 1);
    expect((await api.post(`/api/instances/${waiting}/pause`)).status).toBe(200);
    await tick();
    expect((await api.get(`/api/instances/${sitting}`)).body.task).toBe("ship");
    const refused = await upgrade(sitting, 1, 2);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain('task "ship"');
    expect(refused.body.error).toContain("tasks.charge.output /properties/amount");
    const fine = await upgrade(waiting, 1, 2);
    expect(fine.status, "an instance still on charge will store the new result").toBe(200);
  });

  it("refuses a child id with 400 naming the root", async () => {
    const res = await upgrade(CHILD, 1, 1);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(ROOT);
  });

  it("answers 404 for an unknown instance or an unregistered to_version, 400 for a malformed id or body", async () => {
    expect((await upgrade("019a3c1e-0000-7000-8000-00000000ffff", 1, 2)).status).toBe(404);
    const id = await start("flow", 1);
    const missing = await upgrade(id, 1, 9);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toContain("no version 9");
    expect((await upgrade("nope", 1, 2)).status).toBe(400);
    expect((await api.post(`/api/instances/${id}/upgrade`, { from_version: 1 })).status).toBe(400);
  });
});
