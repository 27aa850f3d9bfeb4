import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, bare, collectAll, deploy, shop, sleep, start } from "../../support/instances-fixtures.js";

// GET /instances: every filter of docs/instances.md "Lists" and the pagination envelope, on instances the
// start wrote (the engine never runs here: --poll 0, no /tick). Filters that need other
// statuses, error codes or children are exercised in instances/engine-results.test.ts.

let server: TestServer;
let api: Api;
/** Oldest first. */
const pager: Array<{ id: string; created: number }> = [];
const other: string[] = [];

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
  await deploy(api, bare("pager"));
  await deploy(api, bare("pager")); // unchanged: still version 1
  await deploy(api, { ...bare("pager"), tasks: [{ id: "v2-first" }, { id: "only" }] }); // version 2
  await deploy(api, shop("other"));
  for (let i = 0; i < 5; i++) {
    const s = await start(api, { process: "pager", version: i < 3 ? 1 : 2 });
    const view = await api.get(`/api/instances/${s.id}`);
    pager.push({ id: s.id, created: Date.parse(view.body.created_at) });
    await sleep(3); // distinct created_at, so time bounds can split the set
  }
  for (let i = 0; i < 2; i++) other.push((await start(api, { process: "other", input: { order: `o${i}` } })).id);
});
afterAll(async () => {
  await server?.stop();
});

const ids = (res: { body: { items: Array<{ id: string }> } }) => res.body.items.map((i) => i.id);
const newestFirst = () => pager.map((p) => p.id).reverse();

describe("GET /api/instances rows", () => {
  it("carry the status view plus parent_id (null for a root), root_id and phase", async () => {
    const res = await api.get("/api/instances?process=other&limit=1");
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      {
        id: other[1],
        process: "other",
        version: 1,
        status: "running",
        task: "check",
        retry_count: 0,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        wake_at: expect.any(String),
        key: null,
        parent_id: null,
        root_id: other[1],
        phase: null,
      },
    ]);
  });
});

describe("GET /api/instances filters", () => {
  it("process: exact name across every version", async () => {
    expect(ids(await api.get("/api/instances?process=pager"))).toEqual(newestFirst());
    expect(ids(await api.get("/api/instances?process=page")), "no prefix match").toEqual([]);
  });

  it("version: exact, and 0 means any", async () => {
    expect(ids(await api.get("/api/instances?process=pager&version=2"))).toEqual(newestFirst().slice(0, 2));
    expect(ids(await api.get("/api/instances?process=pager&version=1"))).toEqual(newestFirst().slice(2));
    expect(ids(await api.get("/api/instances?process=pager&version=0"))).toEqual(newestFirst());
    expect((await api.get("/api/instances?version=-1")).status).toBe(400);
  });

  it("status: one value or several comma-separated, validated against the statuses", async () => {
    expect(ids(await api.get("/api/instances?process=pager&status=running"))).toEqual(newestFirst());
    expect(ids(await api.get("/api/instances?process=pager&status=completed"))).toEqual([]);
    expect(ids(await api.get("/api/instances?process=pager&status=completed,running"))).toEqual(newestFirst());
    for (const bad of ["done", "running,", "running,done", "RUNNING"]) {
      const res = await api.get(`/api/instances?status=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.code).toBe("invalid");
    }
  });

  it("task: exact task id, and only together with process", async () => {
    const res = await api.get("/api/instances?task=only");
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('"task" needs "process"');
    expect(ids(await api.get("/api/instances?process=pager&task=only"))).toEqual(newestFirst().slice(2));
    expect(ids(await api.get("/api/instances?process=pager&task=v2-first"))).toEqual(newestFirst().slice(0, 2));
  });

  it("phase: validated, and matches nothing on instances that are not waiting", async () => {
    expect(ids(await api.get("/api/instances?phase=children"))).toEqual([]);
    expect((await api.get("/api/instances?phase=sleeping")).status).toBe(400);
  });

  it("error_code: exact code; no running instance has one", async () => {
    expect(ids(await api.get("/api/instances?error_code=http.500"))).toEqual([]);
  });

  it("created_after is inclusive and created_before exclusive (unix ms)", async () => {
    const third = pager[2]!.created;
    expect(ids(await api.get(`/api/instances?process=pager&created_after=${third}`))).toEqual(
      newestFirst().slice(0, 3),
    );
    expect(ids(await api.get(`/api/instances?process=pager&created_before=${third}`))).toEqual(newestFirst().slice(3));
    expect(
      ids(
        await api.get(
          `/api/instances?process=pager&created_after=${pager[1]!.created}&created_before=${pager[3]!.created}`,
        ),
      ),
    ).toEqual([pager[2]!.id, pager[1]!.id]);
    expect((await api.get("/api/instances?created_after=yesterday")).status).toBe(400);
  });

  it("updated_after is inclusive and updated_before exclusive (unix ms)", async () => {
    const third = pager[2]!.created; // never advanced: updated_at = created_at
    expect(ids(await api.get(`/api/instances?process=pager&updated_after=${third}`))).toEqual(
      newestFirst().slice(0, 3),
    );
    expect(ids(await api.get(`/api/instances?process=pager&updated_before=${third}`))).toEqual(newestFirst().slice(3));
  });

  it("filters combine with AND", async () => {
    expect(
      ids(await api.get(`/api/instances?process=pager&version=1&status=running&created_after=${pager[1]!.created}`)),
    ).toEqual([pager[2]!.id, pager[1]!.id]);
  });

  it("children=true still lists roots; a misspelled filter is a 400 naming it", async () => {
    expect(ids(await api.get("/api/instances?process=pager&children=true"))).toEqual(newestFirst());
    expect(ids(await api.get("/api/instances?process=pager&children=false"))).toEqual(newestFirst());
    const res = await api.get("/api/instances?proces=pager");
    expect(res.status).toBe(400);
    expect(res.text).toContain("proces");
  });
});

describe("GET /api/instances pagination", () => {
  it("defaults to created_at desc with page size 20", async () => {
    const res = await api.get("/api/instances");
    expect(res.body.page).toMatchObject({
      size: 20,
      sort: "created_at",
      order: "desc",
      items_before: 0,
      items_after: 0,
      next_cursor: null,
      previous_cursor: null,
    });
    expect(res.body.items.length).toBeGreaterThanOrEqual(7);
  });

  it("walks forward with next_cursor and back with previous_cursor, counting items on each side", async () => {
    const base = "/api/instances?process=pager&limit=2";
    const p1 = await api.get(base);
    expect(ids(p1)).toEqual(newestFirst().slice(0, 2));
    expect(p1.body.page).toMatchObject({ size: 2, items_before: 0, items_after: 3, previous_cursor: null });
    const p2 = await api.get(`${base}&after=${p1.body.page.next_cursor}`);
    expect(ids(p2)).toEqual(newestFirst().slice(2, 4));
    expect(p2.body.page).toMatchObject({ items_before: 2, items_after: 1 });
    const p3 = await api.get(`${base}&after=${p2.body.page.next_cursor}`);
    expect(ids(p3)).toEqual(newestFirst().slice(4));
    expect(p3.body.page).toMatchObject({ items_before: 4, items_after: 0, next_cursor: null });
    const back = await api.get(`${base}&before=${p3.body.page.previous_cursor}`);
    expect(ids(back), "before returns the previous page in the requested order").toEqual(ids(p2));
    expect(back.body.page).toMatchObject({ items_before: 2, items_after: 1 });
    const first = await api.get(`${base}&before=${back.body.page.previous_cursor}`);
    expect(ids(first)).toEqual(ids(p1));
    expect(first.body.page.previous_cursor).toBeNull();
  });

  it("sorts by updated_at and created_at in both orders, ties broken by id", async () => {
    const all = await collectAll(api, "/api/instances?process=pager&sort=updated_at&order=asc&limit=1");
    expect(all).toEqual(pager.map((p) => p.id));
    const desc = await collectAll(api, "/api/instances?process=pager&sort=created_at&order=desc&limit=3");
    expect(desc).toEqual(newestFirst());
    const updatedDesc = await collectAll(api, "/api/instances?process=pager&sort=updated_at&limit=4");
    expect(updatedDesc).toEqual(newestFirst());
  });

  it("clamps a limit over 100 on every list: 200 with page.size 100", async () => {
    const id = (await api.get("/api/instances?limit=1")).body.items[0].id as string;
    for (const path of ["/api/instances", "/api/definitions", "/api/channels", `/api/instances/${id}/logs`]) {
      const res = await api.get(`${path}?limit=101`);
      expect(res.status, path).toBe(200);
      expect(res.body.page.size, path).toBe(100);
      expect(res.body.items.length, path).toBeLessThanOrEqual(100);
    }
  });

  it("refuses a bad sort key, limit, cursor, a cursor replayed with another order, or both cursors", async () => {
    const p1 = await api.get("/api/instances?process=pager&limit=2");
    const cursor = p1.body.page.next_cursor as string;
    const cases: Array<[string, string]> = [
      ["/api/instances?sort=id", "sort"],
      ["/api/instances?limit=0", "limit"],
      ["/api/instances?after=not-a-cursor", "cursor"],
      [`/api/instances?process=pager&limit=2&order=asc&after=${cursor}`, "order"],
      [`/api/instances?process=pager&limit=2&after=${cursor}&before=${cursor}`, "before"],
    ];
    for (const [path, word] of cases) {
      const res = await api.get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.code).toBe("invalid");
      expect(res.text, path).toContain(word);
    }
  });

  it("refuses a cursor of another list", async () => {
    const p = await api.get("/api/instances?process=pager&limit=1");
    const foreign = p.body.page.next_cursor as string;
    const res = await api.get(`/api/instances/${pager[0]!.id}/logs?after=${foreign}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("another list");
  });

  // A cursor is base64 JSON a caller can write (docs/limits.md "Requests"): values that do not fit
  // the sort's columns must be refused before they reach the database.
  it("refuses a forged cursor whose values do not fit the sort's columns, on every paged list", async () => {
    const encode = (c: object) => Buffer.from(JSON.stringify(c)).toString("base64url");
    const forge = (cursor: string, v: unknown[]) =>
      encode({ ...JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")), v });
    // The cursor form the server issues: list, sort, order and the sort columns' values.
    const logCursor = encode({ l: "logs", s: "created_at", o: "desc", v: [Date.now(), "0"] });
    const lists: Array<[string, string | null]> = [
      ["/api/instances?process=pager&limit=1", null],
      ["/api/instances?process=pager&limit=1&sort=updated_at", null],
      [`/api/instances/${pager[0]!.id}/logs?limit=1`, logCursor],
      ["/api/definitions?limit=1", null],
      ["/api/definitions?limit=1&sort=version", null],
    ];
    for (const [list, issued] of lists) {
      const cursor = issued ?? ((await api.get(list)).body.page.next_cursor as string);
      expect(cursor, list).toEqual(expect.any(String));
      expect((await api.get(`${list}&after=${cursor}`)).status, `${list}: the cursor as issued`).toBe(200);
      const width = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")).v.length;
      const forged = [
        Array(width).fill("garbage"),
        Array(width).fill(1e300),
        Array(width).fill(1.5),
        Array(width).fill(null),
        Array(width).fill(true),
        Array(width).fill({ a: 1 }),
        Array(width).fill(2 ** 53),
        Array(width).fill("x".repeat(2_000)),
      ];
      for (const v of forged)
        for (const which of ["after", "before"]) {
          const res = await api.get(`${list}&${which}=${forge(cursor, v)}`);
          expect(res.status, `${list} ${which} ${JSON.stringify(v).slice(0, 40)}`).toBe(400);
          expect(res.body.code).toBe("invalid");
          expect(res.body.error).toContain(`query parameter "${which}" is not a cursor of this list`);
        }
    }
  });

  // Last: it starts one more pager instance.
  it("keeps pages stable when instances are started between requests", async () => {
    const base = "/api/instances?process=pager&limit=2&sort=created_at&order=asc";
    const p1 = await api.get(base);
    await start(api, { process: "pager", version: 1 });
    const p2 = await api.get(`${base}&after=${p1.body.page.next_cursor}`);
    expect(ids(p2)).toEqual([pager[2]!.id, pager[3]!.id]);
    expect(p2.body.page.items_after, "the new instance is counted after").toBe(2);
  });
});
