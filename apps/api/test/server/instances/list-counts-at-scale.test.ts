import { client, startServer, type TestServer, until } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, collectAll, deploy, start } from "../../support/instances-fixtures.js";

// Reads that stay flat (docs/performance.md "Reads at ten million instances"): the bounded
// items_before/items_after of a list page (--limit-page-count, at its minimum 100 here) and the
// counters behind GET /instances/counts, checked against a scan of the same rows.

const BOUND = 100;
let server: TestServer;
let api: Api;
/** Roots of "many", newest first. */
let many: string[] = [];

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "20", "--limit-page-count", String(BOUND)] });
  api = client(server.url);
  await deploy(api, { name: "many", tasks: [{ id: "only" }] });
  await deploy(api, { name: "park", tasks: [{ id: "later", action: { type: "delay", for: "1d" } }] });
  await deploy(api, {
    name: "boom",
    tasks: [{ id: "call", action: { type: "fetch", url: "http://127.0.0.1:1/never", method: "get" } }],
  });
  await deploy(api, { name: "leaf", tasks: [{ id: "only" }] });
  await deploy(api, {
    name: "tree",
    tasks: [{ id: "split", action: { type: "child_map", children: { a: { name: "leaf" }, b: { name: "leaf" } } } }],
  });
  // BOUND + 1 + BOUND roots: the first page's items_after passes the bound, the middle one's sides sit at it.
  for (let i = 0; i < 2 * BOUND + 1; i++) many.push((await start(api, { process: "many" })).id);
  many = many.reverse();
  const parked: string[] = [];
  for (let i = 0; i < 4; i++) parked.push((await start(api, { process: "park" })).id);
  for (let i = 0; i < 3; i++) await start(api, { process: "boom" });
  for (let i = 0; i < 3; i++) await start(api, { process: "tree" });
  await until("every instance settled but the parked ones", async () => {
    const res = await api.get("/api/instances/counts?by=process,status&children=true&status=running");
    const running = res.body.groups.filter((g: { process: string }) => g.process !== "park").length;
    const parkedNow = await Promise.all(parked.map((id) => api.get(`/api/instances/${id}`)));
    return running === 0 && parkedNow.every((r) => r.body.task === "later") ? true : undefined;
  });
  await api.post(`/api/instances/${parked[0]}/cancel`);
  await api.post(`/api/instances/${parked[1]}/pause`);
});
afterAll(async () => {
  await server?.stop();
});

describe("items_before and items_after past --limit-page-count", () => {
  it("stop at the bound and say so; a page within the bound is exact and unmarked", async () => {
    const first = await api.get(`/api/instances?process=many&limit=20`);
    expect(first.body.items.map((i: { id: string }) => i.id)).toEqual(many.slice(0, 20));
    expect(first.body.page).toMatchObject({ items_before: 0, items_after: BOUND, items_after_exact: false });
    expect(first.body.page).not.toHaveProperty("items_before_exact");
    // The page right after the first BOUND roots: BOUND before it (exactly), BOUND + 1 - 20 after.
    let page = first.body.page;
    let before = 20;
    while (before < BOUND) {
      const res = await api.get(`/api/instances?process=many&limit=20&after=${encodeURIComponent(page.next_cursor)}`);
      page = res.body.page;
      before += 20;
    }
    const at = await api.get(`/api/instances?process=many&limit=20&after=${encodeURIComponent(page.next_cursor)}`);
    expect(at.body.page.items_before).toBe(BOUND);
    expect(at.body.page).not.toHaveProperty("items_before_exact");
    expect(at.body.page).toMatchObject({ items_after: BOUND + 1 - 20 });
    expect(at.body.page).not.toHaveProperty("items_after_exact");
    const next = await api.get(
      `/api/instances?process=many&limit=20&after=${encodeURIComponent(at.body.page.next_cursor)}`,
    );
    expect(next.body.page).toMatchObject({
      items_before: BOUND,
      items_before_exact: false,
      items_after: BOUND + 1 - 40,
    });
  });

  it("still page through every row exactly once, forward and back", async () => {
    expect(await collectAll(api, "/api/instances?process=many&limit=37")).toEqual(many);
    // To the last page with next_cursor, then back to the first with previous_cursor.
    const url = "/api/instances?process=many&limit=37";
    let res = await api.get(url);
    while (res.body.page.next_cursor)
      res = await api.get(`${url}&after=${encodeURIComponent(res.body.page.next_cursor)}`);
    const back: string[] = res.body.items.map((i: { id: string }) => i.id);
    while (res.body.page.previous_cursor) {
      res = await api.get(`${url}&before=${encodeURIComponent(res.body.page.previous_cursor)}`);
      back.unshift(...res.body.items.map((i: { id: string }) => i.id));
    }
    expect(back).toEqual(many);
    expect(res.body.page).toMatchObject({ items_before: 0, items_after: BOUND, items_after_exact: false });
  });
});

describe("GET /instances/counts from the counters", () => {
  const queries = [
    "by=status",
    "by=process,status",
    "by=process",
    "by=status,phase&children=true",
    "by=error_code&status=failed",
    "by=status&process=park",
    "by=process&status=running,paused",
    "by=phase&phase=children&children=true",
  ];

  it("answers exactly what a scan of the rows answers, before and after the rollup", async () => {
    for (const round of ["pending deltas", "after a /tick's rollup"]) {
      for (const q of queries) {
        // created_after=0 matches every row but is a filter the counters do not keep: a scan.
        const counted = await api.get(`/api/instances/counts?${q}`);
        const scanned = await api.get(`/api/instances/counts?${q}&created_after=0`);
        expect(counted.status, counted.text).toBe(200);
        expect(counted.body, `${round}: ${q}`).toEqual(scanned.body);
      }
      await api.post("/api/tick", {});
    }
    const all = await api.get("/api/instances/counts?by=process&children=true");
    expect(
      Object.fromEntries(all.body.groups.map((g: { process: string; count: number }) => [g.process, g.count])),
    ).toEqual({
      boom: 3,
      leaf: 6,
      many: 2 * BOUND + 1,
      park: 4,
      tree: 3,
    });
    const byStatus = await api.get("/api/instances/counts?by=status&process=park");
    expect(byStatus.body.groups).toEqual([
      { status: "cancelled", count: 1 },
      { status: "paused", count: 1 },
      { status: "running", count: 2 },
    ]);
  });
});
