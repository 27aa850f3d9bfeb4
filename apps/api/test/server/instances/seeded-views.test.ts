import { stringifyJson } from "@baton/expr";
import { client, type SharedDatabase, sharedDatabase, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshInstanceRow, freshState } from "../../../src/engine/starts/fresh-row.js";
import { refOf } from "../../../src/storage/objects.js";
import { openDatabase } from "../../../src/storage/db.js";
import { instances, logs, objects } from "../../../src/storage/schema/index.js";
import { type Api, collectAll } from "../../support/instances-fixtures.js";

// Trees, statuses, phases, error codes and log levels that would take long engine runs to
// produce are written straight into the database
// before the server starts on it; the server then only reads them (--poll 0, no /tick).

const T0 = Date.UTC(2026, 0, 2, 10, 0, 0);
const id = (n: number) => `019a3c1e-0000-7000-8000-${String(n).padStart(12, "0")}`;

const R1 = id(1); // running root, phase children
const C1 = id(2); // its completed child
const C2 = id(3); // its failed child
const G1 = id(4); // C1's child, running
const R2 = id(5); // failed root
const R3 = id(6); // raised root
const R4 = id(7); // cancelled root
const R5 = id(8); // paused root, phase external
const R6 = id(9); // completed root with an externalized output
const R7 = id(10); // pausing
const R8 = id(11); // failing
const R9 = id(12); // cancelling

const bigText = "B".repeat(5000);
const bigRef = refOf(stringifyJson(bigText));

type Seed = Partial<typeof instances.$inferInsert> & { id: string; at: number };

function row(seed: Seed): typeof instances.$inferInsert {
  const { at, ...rest } = seed;
  const fresh = freshInstanceRow({
    id: seed.id,
    process: "tree",
    version: 1,
    task: "start",
    state: stringifyJson(freshState({})),
    now: at,
  });
  // Seeded rows are never due: the server under test must not advance them.
  return { ...fresh, wakeAt: null, updatedAt: at + 500, ...rest };
}

const seeds: Seed[] = [
  {
    id: R1,
    at: T0,
    phase: "children",
    task: "fan",
    state: stringifyJson({ input: {}, outputs: {}, _children: { fan: [C1, C2] } }),
  },
  {
    id: C1,
    at: T0 + 1,
    rootId: R1,
    parentId: R1,
    spawnTask: "fan",
    parentTaskEpoch: 1,
    process: "leaf",
    status: "completed",
    output: '{"ok":true}',
  },
  {
    id: C2,
    at: T0 + 2,
    rootId: R1,
    parentId: R1,
    spawnTask: "fan",
    parentTaskEpoch: 1,
    process: "leaf",
    status: "failed",
    errorCode: "http.503",
    errorMessage: "Service Unavailable",
  },
  { id: G1, at: T0 + 3, rootId: R1, parentId: C1, parentTaskEpoch: 2, process: "leaf" },
  {
    id: R2,
    at: T0 + 10,
    status: "failed",
    task: "charge",
    errorCode: "http.503",
    errorMessage: 'task "charge": http.503: Service Unavailable',
    retryCount: 3,
  },
  { id: R3, at: T0 + 20, status: "raised", task: "reserve", errorCode: "out_of_stock", errorMessage: "no stock" },
  { id: R4, at: T0 + 30, status: "cancelled", process: "other" },
  { id: R5, at: T0 + 40, status: "paused", phase: "external", version: 2 },
  {
    id: R6,
    at: T0 + 50,
    status: "completed",
    output: stringifyJson({ report: { $ref: bigRef }, n: 1 }),
    state: stringifyJson({ input: {}, outputs: { big: { $ref: bigRef } }, _children: {} }),
  },
  { id: R7, at: T0 + 60, status: "pausing" },
  { id: R8, at: T0 + 70, status: "failing" },
  { id: R9, at: T0 + 80, status: "cancelling" },
];

type LogSeed = { n: number; instance: string; root: string; level: string; event: string; at: number; data?: object };
const logSeeds: LogSeed[] = [
  { n: 101, instance: R1, root: R1, level: "info", event: "instance.started", at: T0 },
  { n: 102, instance: C1, root: R1, level: "debug", event: "task.started", at: T0 + 100 },
  { n: 103, instance: C2, root: R1, level: "error", event: "task.failed", at: T0 + 200, data: { code: "http.503" } },
  {
    n: 104,
    instance: G1,
    root: R1,
    level: "warn",
    event: "task.retry_scheduled",
    at: T0 + 300,
    data: { wait_ms: 1000 },
  },
  { n: 105, instance: R1, root: R1, level: "info", event: "instance.paused", at: T0 + 400 },
  { n: 106, instance: R1, root: R1, level: "debug", event: "task.started", at: T0 + 400 },
  { n: 107, instance: R2, root: R2, level: "error", event: "instance.failed", at: T0 + 500 },
];

let server: TestServer;
let api: Api;
let database: SharedDatabase;

beforeAll(async () => {
  database = await sharedDatabase("baton-seeded-");
  const db = await openDatabase(database.connection);
  try {
    await db.db.insert(instances).values(seeds.map(row));
    await db.db.insert(logs).values(
      logSeeds.map((l) => ({
        id: id(l.n),
        instanceId: l.instance,
        rootId: l.root,
        level: l.level,
        event: l.event,
        message: `${l.event} of ${l.instance}`,
        task: "t",
        actor: l.event === "instance.paused" ? "token:ops" : null,
        data: l.data ? stringifyJson(l.data) : null,
        createdAt: l.at,
      })),
    );
    await db.db
      .insert(objects)
      .values({ ref: bigRef, value: stringifyJson(bigText), size: bigText.length + 2, createdAt: T0 });
  } finally {
    await db.close();
  }
  server = await startServer({ database: database.location, args: ["--poll", "0", "--object-resolve-limit", "10000"] });
  api = client(server.url);
});
afterAll(async () => {
  await server?.stop();
  await database?.dispose();
});

const ids = (res: { body: { items: Array<{ id: string }> } }) => res.body.items.map((i) => i.id);

describe("status and detail views of settled and child instances", () => {
  it("show error_code and error_message only on an instance that has them", async () => {
    const failed = await api.get(`/api/instances/${R2}`);
    expect(failed.body).toEqual({
      id: R2,
      process: "tree",
      version: 1,
      status: "failed",
      task: "charge",
      retry_count: 3,
      error_code: "http.503",
      error_message: 'task "charge": http.503: Service Unavailable',
      created_at: "2026-01-02T10:00:00.010Z",
      updated_at: "2026-01-02T10:00:00.510Z",
      wake_at: null,
      key: null,
    });
  });

  it("show a finished instance's output, with externalized parts spliced back", async () => {
    const done = await api.get(`/api/instances/${R6}`);
    expect(done.body.output).toEqual({ report: bigText, n: 1 });
    const child = await api.get(`/api/instances/${C1}`);
    expect(child.body.output).toEqual({ ok: true });
  });

  it("list every placeholder of the detail under objects, output included, and splice them with resolve=true", async () => {
    const detail = await api.get(`/api/instances/${R6}/detail`);
    expect(detail.body.state.outputs.big).toEqual({ $ref: bigRef });
    expect(detail.body.output).toEqual({ report: { $ref: bigRef }, n: 1 });
    expect(detail.body.objects).toEqual([
      { path: ["state", "outputs", "big"], ref: bigRef, size: 5002 },
      { path: ["output", "report"], ref: bigRef, size: 5002 },
    ]);
    const resolved = await api.get(`/api/instances/${R6}/detail?resolve=true`);
    expect(resolved.body.state.outputs.big).toBe(bigText);
    expect(resolved.body.output.report).toBe(bigText);
    expect(resolved.body.objects).toEqual([]);
  });

  it("show a child's tree links and parent_task_epoch", async () => {
    const detail = await api.get(`/api/instances/${G1}/detail`);
    expect(detail.body).toMatchObject({ id: G1, parent_id: C1, root_id: R1, parent_task_epoch: 2, phase: null });
    const root = await api.get(`/api/instances/${R1}/detail`);
    expect(root.body).toMatchObject({ parent_id: null, root_id: R1, phase: "children" });
    expect(root.body.state._children).toEqual({ fan: [C1, C2] });
  });
});

describe("GET /api/instances over trees and every status", () => {
  it("lists roots only by default, one row per tree, and children too with children=true", async () => {
    const roots = await collectAll(api, "/api/instances?limit=5");
    expect(roots).toEqual([R9, R8, R7, R6, R5, R4, R3, R2, R1]);
    const all = await collectAll(api, "/api/instances?children=true&limit=5");
    expect(all).toEqual([R9, R8, R7, R6, R5, R4, R3, R2, G1, C2, C1, R1]);
    const rows = (await api.get("/api/instances?children=true&process=leaf")).body.items;
    expect(rows.map((r: { id: string; parent_id: string; root_id: string }) => [r.id, r.parent_id, r.root_id])).toEqual(
      [
        [G1, C1, R1],
        [C2, R1, R1],
        [C1, R1, R1],
      ],
    );
  });

  it("filters by each status and by several comma-separated", async () => {
    const expected: Record<string, string[]> = {
      running: [R1],
      pausing: [R7],
      paused: [R5],
      failing: [R8],
      cancelling: [R9],
      completed: [R6],
      failed: [R2],
      raised: [R3],
      cancelled: [R4],
    };
    for (const [status, want] of Object.entries(expected))
      expect(ids(await api.get(`/api/instances?status=${status}`)), status).toEqual(want);
    expect(ids(await api.get("/api/instances?status=failed,raised"))).toEqual([R3, R2]);
    expect(ids(await api.get("/api/instances?status=failed,raised,failed&children=true"))).toEqual([R3, R2, C2]);
    expect(ids(await api.get("/api/instances?status=completed&children=true"))).toEqual([R6, C1]);
  });

  it("filters by phase", async () => {
    expect(ids(await api.get("/api/instances?phase=children"))).toEqual([R1]);
    expect(ids(await api.get("/api/instances?phase=external"))).toEqual([R5]);
    expect(ids(await api.get("/api/instances?phase=collecting"))).toEqual([]);
  });

  it("filters by exact error_code, on roots or on the whole forest", async () => {
    expect(ids(await api.get("/api/instances?error_code=http.503"))).toEqual([R2]);
    expect(ids(await api.get("/api/instances?error_code=http.503&children=true"))).toEqual([R2, C2]);
    expect(ids(await api.get("/api/instances?error_code=out_of_stock"))).toEqual([R3]);
    expect(ids(await api.get("/api/instances?error_code=http.5"))).toEqual([]);
  });

  it("counts by task (a scan: the counters keep no task), with the process and statuses asked", async () => {
    const res = await api.get("/api/instances/counts?process=tree&status=failed,raised,failing&by=task,status");
    expect(res.status, res.text).toBe(200);
    expect(res.body.groups).toEqual([
      { task: "charge", status: "failed", count: 1 },
      { task: "reserve", status: "raised", count: 1 },
      { task: "start", status: "failing", count: 1 },
    ]);
  });

  it("filters by error_code_prefix, literally: `_` and `%` are no wildcards, in lists and counts", async () => {
    expect(ids(await api.get("/api/instances?error_code_prefix=http.5"))).toEqual([R2]);
    expect(ids(await api.get("/api/instances?error_code_prefix=http.5&children=true"))).toEqual([R2, C2]);
    expect(ids(await api.get("/api/instances?error_code_prefix=out_of"))).toEqual([R3]);
    expect(ids(await api.get("/api/instances?error_code_prefix=out%25of"))).toEqual([]);
    expect(ids(await api.get("/api/instances?error_code_prefix=http_5"))).toEqual([]);
    const counts = await api.get("/api/instances/counts?by=error_code&error_code_prefix=http.&children=true");
    expect(counts.body.groups).toEqual([{ error_code: "http.503", count: 2 }]);
    const scanned = await api.get(`/api/instances/counts?by=error_code&error_code_prefix=http.&created_after=${T0}`);
    expect(scanned.body.groups, "the scan path too").toEqual([{ error_code: "http.503", count: 1 }]);
  });

  it("filters by process, version and task", async () => {
    expect(ids(await api.get("/api/instances?process=other"))).toEqual([R4]);
    expect(ids(await api.get("/api/instances?process=tree&version=2"))).toEqual([R5]);
    expect(ids(await api.get("/api/instances?process=tree&task=charge"))).toEqual([R2]);
    expect(ids(await api.get("/api/instances?process=leaf&task=start&children=true"))).toEqual([G1, C2, C1]);
  });

  it("filters by updated_at bounds independently of created_at", async () => {
    // updated_at = created_at + 500 for every seeded row.
    expect(ids(await api.get(`/api/instances?updated_after=${T0 + 550}`))).toEqual([R9, R8, R7, R6]);
    expect(ids(await api.get(`/api/instances?updated_before=${T0 + 510}`))).toEqual([R1]);
    expect(ids(await api.get(`/api/instances?updated_before=${T0 + 511}&created_after=${T0 + 1}`))).toEqual([R2]);
  });

  it("sorts by updated_at ascending across pages", async () => {
    expect(await collectAll(api, "/api/instances?sort=updated_at&order=asc&limit=4")).toEqual([
      R1,
      R2,
      R3,
      R4,
      R5,
      R6,
      R7,
      R8,
      R9,
    ]);
  });
});

describe("GET /api/instances/{id}/logs", () => {
  it("returns a root's whole tree, newest first, ties broken by id", async () => {
    const res = await api.get(`/api/instances/${R1}/logs`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([id(106), id(105), id(104), id(103), id(102), id(101)]);
    expect(res.body.items[2]).toEqual({
      id: id(104),
      instance_id: G1,
      level: "warn",
      event: "task.retry_scheduled",
      message: `task.retry_scheduled of ${G1}`,
      task: "t",
      actor: null,
      actor_label: null,
      data: { wait_ms: 1000 },
      created_at: "2026-01-02T10:00:00.300Z",
    });
    // No token row has id "ops": the raw actor is its own label (docs/auth.md "Actors").
    expect(res.body.items.find((i: { id: string }) => i.id === id(105))).toMatchObject({
      actor: "token:ops",
      actor_label: "token:ops",
    });
    expect("data" in res.body.items[0], "no data: the field is omitted").toBe(false);
  });

  it("returns only the root's own rows with flat=true, and a child's own rows either way", async () => {
    expect(ids(await api.get(`/api/instances/${R1}/logs?flat=true`))).toEqual([id(106), id(105), id(101)]);
    expect(ids(await api.get(`/api/instances/${C1}/logs`))).toEqual([id(102)]);
    expect(ids(await api.get(`/api/instances/${C1}/logs?flat=false`))).toEqual([id(102)]);
    expect(ids(await api.get(`/api/instances/${C2}/logs?flat=true`))).toEqual([id(103)]);
    expect((await api.get(`/api/instances/${R1}/logs?flat=maybe`)).status).toBe(400);
  });

  it("keeps the given level and every level above it", async () => {
    expect(ids(await api.get(`/api/instances/${R1}/logs?level=debug`))).toHaveLength(6);
    expect(ids(await api.get(`/api/instances/${R1}/logs?level=info`))).toEqual([id(105), id(104), id(103), id(101)]);
    expect(ids(await api.get(`/api/instances/${R1}/logs?level=warn`))).toEqual([id(104), id(103)]);
    expect(ids(await api.get(`/api/instances/${R1}/logs?level=error`))).toEqual([id(103)]);
    expect((await api.get(`/api/instances/${R1}/logs?level=fatal`)).status).toBe(400);
  });

  it("bounds by created_after (inclusive) and created_before (exclusive)", async () => {
    expect(ids(await api.get(`/api/instances/${R1}/logs?created_after=${T0 + 200}`))).toEqual([
      id(106),
      id(105),
      id(104),
      id(103),
    ]);
    expect(ids(await api.get(`/api/instances/${R1}/logs?created_before=${T0 + 200}`))).toEqual([id(102), id(101)]);
    expect(
      ids(await api.get(`/api/instances/${R1}/logs?created_after=${T0 + 100}&created_before=${T0 + 400}&level=warn`)),
    ).toEqual([id(104), id(103)]);
  });

  it("pages forward and back with cursors, in both orders", async () => {
    const base = `/api/instances/${R1}/logs?limit=4`;
    const p1 = await api.get(base);
    expect(ids(p1)).toEqual([id(106), id(105), id(104), id(103)]);
    expect(p1.body.page).toMatchObject({
      size: 4,
      sort: "created_at",
      order: "desc",
      items_before: 0,
      items_after: 2,
      previous_cursor: null,
    });
    const p2 = await api.get(`${base}&after=${p1.body.page.next_cursor}`);
    expect(ids(p2)).toEqual([id(102), id(101)]);
    expect(p2.body.page).toMatchObject({ items_before: 4, items_after: 0, next_cursor: null });
    const back = await api.get(`${base}&before=${p2.body.page.previous_cursor}`);
    expect(ids(back)).toEqual(ids(p1));
    const asc = await collectAll(api, `/api/instances/${R1}/logs?order=asc&limit=1`);
    expect(asc).toEqual([id(101), id(102), id(103), id(104), id(105), id(106)]);
    expect((await api.get(`/api/instances/${R1}/logs?sort=level`)).status).toBe(400);
  });

  it("answers 404 for an unknown instance", async () => {
    const res = await api.get(`/api/instances/${id(999)}/logs`);
    expect(res.status).toBe(404);
    expect(res.body.error).toContain(id(999));
  });
});
