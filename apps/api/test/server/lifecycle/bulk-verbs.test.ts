// POST /instances/bulk/{verb} (docs/api.md "Bulk verbs") on a real baton-api with its engine
// running: a thousand failed roots retried in one call, dry runs that change nothing, cursors,
// per-root refusals, and bulk verbs racing the engine over trees that must stay consistent.
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, deploy, sleep, start } from "../../support/instances-fixtures.js";

let server: TestServer;
let api: Api;

const FLAKY = {
  name: "flaky",
  tasks: [{ id: "call", action: { type: "fetch", url: "http://127.0.0.1:1/never", method: "get" } }],
};
// A tree that takes a while: two children, each sleeping a little twice.
const KID = {
  name: "kid",
  tasks: [
    { id: "nap", action: { type: "delay", for: 30 } },
    { id: "again", action: { type: "delay", for: 30 } },
  ],
};
const TREE = {
  name: "tree",
  tasks: [
    { id: "fan", action: { type: "child_map", children: { a: { name: "kid" }, b: { name: "kid" } } } },
    { id: "after", action: { type: "delay", for: 20 } },
  ],
};

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "20"] });
  api = client(server.url);
  for (const definition of [FLAKY, KID, TREE]) await deploy(api, definition);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

async function counts(query: string): Promise<Record<string, number>> {
  const res = await api.get(`/api/instances/counts?${query}`);
  expect(res.status, res.text).toBe(200);
  return Object.fromEntries(res.body.groups.map((g: { status: string; count: number }) => [g.status, g.count]));
}

/** Waits until `query`'s counts satisfy `done`. */
async function until(query: string, done: (c: Record<string, number>) => boolean): Promise<Record<string, number>> {
  for (;;) {
    const c = await counts(query);
    if (done(c)) return c;
    await sleep(100);
  }
}

/** Starts `n` roots, with business key `key` when given (the tests below select theirs by it). */
async function startMany(process: string, n: number, key?: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, () => start(api, { process, ...(key ? { key } : {}) })),
    );
    ids.push(...batch.map((s) => s.id));
  }
  return ids;
}

describe("bulk retry", () => {
  it("retries 1,000 failed roots in one call, after a dry run that changed nothing", async () => {
    const ids = await startMany("flaky", 1000);
    await until("process=flaky", (c) => c.failed === 1000);

    const dry = await api.post("/api/instances/bulk/retry", {
      process: "flaky",
      status: "failed",
      limit: 1000,
      dry_run: true,
    });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body).toMatchObject({ dry_run: true, counts: { matched: 1000 }, refused: [], next_cursor: null });
    expect([...dry.body.ids.matched].sort()).toEqual([...ids].sort());
    expect(await counts("process=flaky"), "a dry run changes nothing").toEqual({ failed: 1000 });
    const untouched = await api.get(`/api/instances/${ids[0]}/logs?limit=100`);
    expect(untouched.body.items.map((e: { event: string }) => e.event)).not.toContain("instance.retried");

    const res = await api.post("/api/instances/bulk/retry", { process: "flaky", status: "failed", limit: 1000 });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ dry_run: false, counts: { retried: 1000 }, refused: [], next_cursor: null });
    expect([...res.body.ids.retried].sort()).toEqual([...ids].sort());
    // Each retried root fails again (the URL still refuses), after one more attempt.
    await until("process=flaky", (c) => c.failed === 1000);
    const logs = await api.get(`/api/instances/${ids[0]}/logs?limit=100&order=asc`);
    const retried = logs.body.items.filter((e: { event: string }) => e.event === "instance.retried");
    expect(retried, "the single verb's log line, once").toHaveLength(1);
  }, 300_000);

  it("writes the same log line as the single verb", async () => {
    const [one, two] = await startMany("flaky", 2, "same-line");
    await until("key=same-line", (c) => c.failed === 2);
    expect((await api.post(`/api/instances/${one}/retry`)).status).toBe(200);
    const bulk = await api.post("/api/instances/bulk/retry", { key: "same-line", status: "failed" });
    expect(bulk.body.ids.retried).toContain(two);
    const lineOf = async (id: string) => {
      const logs = await api.get(`/api/instances/${id}/logs?limit=100`);
      const line = logs.body.items.find((e: { event: string }) => e.event === "instance.retried");
      return { event: line.event, level: line.level, message: line.message, actor: line.actor, task: line.task };
    };
    expect(await lineOf(two)).toEqual(await lineOf(one));
  }, 120_000);
});

describe("bulk verbs and cursors", () => {
  it("acts on at most `limit` roots per call and continues with the cursor until done", async () => {
    const ids = await startMany("flaky", 7, "paged");
    await until("key=paged", (c) => c.failed === 7);
    const filters = { key: "paged", status: "failed" };
    const seen: string[] = [];
    let cursor: string | null | undefined;
    const sizes: number[] = [];
    do {
      const res = await api.post("/api/instances/bulk/retry", { ...filters, limit: 3, ...(cursor ? { cursor } : {}) });
      expect(res.status, res.text).toBe(200);
      const acted: string[] = res.body.ids.retried ?? [];
      sizes.push(acted.length);
      seen.push(...acted);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect([...seen].sort()).toEqual([...ids].sort());
    expect(sizes, "3 + 3 + 1, in id order").toEqual([3, 3, 1]);
    expect(seen).toEqual([...seen].sort());
  }, 120_000);

  it("reports a root the verb refuses instead of failing the call", async () => {
    const [id] = await startMany("tree", 1, "refused");
    await api.post(`/api/instances/${id}/cancel`);
    await until("key=refused", (c) => c.cancelled === 1);
    // A cancelled tree is terminal: retry refuses it, as the single verb does (409).
    const single = await api.post(`/api/instances/${id}/retry`);
    expect(single.status).toBe(409);
    const res = await api.post("/api/instances/bulk/retry", { key: "refused" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.counts).toEqual({ refused: 1 });
    const entry = res.body.refused.find((r: { id: string }) => r.id === id);
    expect(entry).toEqual({ id, code: "conflict", error: single.body.error });
  }, 120_000);

  it("refuses a cursor of another verb and a limit over 1,000", async () => {
    const first = await api.post("/api/instances/bulk/cancel", { process: "flaky", limit: 1, dry_run: true });
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const other = await api.post("/api/instances/bulk/pause", { process: "flaky", cursor: first.body.next_cursor });
    expect(other.status).toBe(400);
    expect(other.body.fields[0].path).toBe("body.cursor");
    const big = await api.post("/api/instances/bulk/pause", { limit: 1001 });
    expect(big.status).toBe(400);
    expect(big.body.fields[0].path).toBe("body.limit");
    const children = await api.post("/api/instances/bulk/pause", { children: true });
    expect(children.status, "bulk verbs act on roots only").toBe(400);
  });
});

describe("bulk verbs racing the engine", () => {
  /** Every row of every tree: no live row under a settled root, and the root tells the tree's story. */
  async function expectConsistentTrees(roots: string[]): Promise<void> {
    for (const root of roots) {
      const rootView = (await api.get(`/api/instances/${root}`)).body;
      const kids = (await api.get(`/api/instances?parent_id=${root}&limit=100`)).body.items;
      const live = ["running", "pausing", "paused", "failing", "cancelling"];
      if (!live.includes(rootView.status))
        for (const kid of kids) expect(live, `child ${kid.id} of settled root ${root}`).not.toContain(kid.status);
      if (rootView.status === "cancelled")
        for (const kid of kids) expect(["cancelled", "completed"]).toContain(kid.status);
      if (rootView.status === "completed") for (const kid of kids) expect(kid.status).toBe("completed");
    }
  }

  it("pauses and resumes 100 running trees mid-flight; every tree then completes", async () => {
    const roots = await startMany("tree", 100);
    const paused = await api.post("/api/instances/bulk/pause", { process: "tree", status: "running", limit: 1000 });
    expect(paused.status, paused.text).toBe(200);
    await until("process=tree&children=true", (c) => !c.pausing && !c.running);
    const resumed = await api.post("/api/instances/bulk/resume", { process: "tree", status: "paused", limit: 1000 });
    expect(resumed.status, resumed.text).toBe(200);
    await until("process=tree", (c) => c.completed === 100);
    await until("process=kid&children=true", (c) => c.completed === 200);
    await expectConsistentTrees(roots);
  }, 300_000);

  it("cancels 100 running trees mid-flight; each ends cancelled (or completed first), none half-way", async () => {
    const roots = await startMany("tree", 100);
    await sleep(30);
    const res = await api.post("/api/instances/bulk/cancel", { process: "tree", status: "running", limit: 1000 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.refused).toEqual([]);
    const settled = await until(
      "process=tree&children=true&created_after=0",
      (c) => !c.running && !c.cancelling && !c.pausing,
    );
    expect(Object.keys(settled).every((status) => ["cancelled", "completed"].includes(status))).toBe(true);
    await expectConsistentTrees(roots);
  }, 300_000);
});
