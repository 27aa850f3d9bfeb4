// Several api processes on one PostgreSQL database race for the same work (docs/engine.md#the-pump-claims-and-leases): no
// instance is advanced twice, no update is lost, and operator verbs racing the pumps leave
// every tree in a state of the machine. Row-lock concurrency only means something on
// PostgreSQL: PGlite has a single connection.
import { client, json, startServer, startUpstream, type TestServer, type Upstream, onPostgres } from "@baton/testkit";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SETTLED = ["completed", "failed", "raised", "cancelled"];
const LIVE = ["running", "pausing", "paused", "failing", "cancelling"];
/** The upstream answers every call with the Idempotency-Key it got. */
const KEYED = { type: "object", properties: { key: { type: "string" } }, required: ["key"] };

describe.skipIf(!onPostgres)("replicas on one PostgreSQL database", () => {
  let up: Upstream;
  const servers: TestServer[] = [];
  let apis: Array<ReturnType<typeof client>>;
  let sql: ReturnType<typeof postgres>;
  /** Idempotency-Key → number of calls that carried it. */
  const keys = new Map<string, number>();

  beforeAll(async () => {
    up = await startUpstream(async (req, res) => {
      const key = String(req.headers["idempotency-key"]);
      keys.set(key, (keys.get(key) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 15)));
      if (req.path.startsWith("/flaky") && Math.random() < 0.2) return json(res, 503, { error: "try again" });
      json(res, 200, { key });
    });
    const first = await startServer({ args: ["--poll", "50", "--max-concurrent", "50"] });
    servers.push(first);
    for (let i = 0; i < 2; i++)
      servers.push(await startServer({ args: ["--poll", "50", "--max-concurrent", "50"], database: first.database }));
    apis = servers.map((s) => client(s.url));
    sql = postgres(first.database, { max: 2, onnotice: () => {} });
    const defs = [
      {
        name: "steps3",
        tasks: [
          {
            id: "a",
            action: { type: "fetch", url: `${up.url}/a`, result_schema: KEYED },
            output: "$: self.result.key",
          },
          {
            id: "b",
            action: { type: "fetch", url: `${up.url}/b`, result_schema: KEYED },
            output: "$: self.result.key",
          },
          {
            id: "c",
            action: { type: "fetch", url: `${up.url}/c`, result_schema: KEYED },
            output: "$: self.result.key",
          },
        ],
      },
      {
        name: "flaky5",
        tasks: ["a", "b", "c", "d", "e"].map((id) => ({
          id,
          action: { type: "fetch", url: `${up.url}/flaky/${id}`, result_schema: KEYED },
          output: "$: self.result.key",
          on_error: [{ code: ["http.503"], retry: { retries: 1, delay: "50ms" } }],
        })),
      },
      {
        name: "leaf",
        input_schema: { type: "object", properties: { i: { type: "integer" } }, required: ["i"] },
        tasks: [
          {
            id: "call",
            action: { type: "fetch", url: `${up.url}/leaf`, result_schema: KEYED },
            output: "$: self.result.key",
          },
        ],
        output: { i: "$: input.i" },
      },
      {
        name: "fan10",
        tasks: [
          {
            id: "each",
            action: {
              type: "child_list",
              name: "leaf",
              over: "$: map([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], i => {i: i})",
              result_schema: { type: "object", properties: { i: { type: "integer" } }, required: ["i"] },
            },
          },
        ],
        output: { is: "$: map(outputs.each, o => o.i)" },
      },
    ];
    for (const def of defs) {
      const res = await apis[0].put("/api/definitions", def);
      expect(res.status, res.text).toBe(200);
    }
  }, 120_000);

  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    for (const s of servers) await s.stop();
    await up?.close();
  });

  async function startMany(process: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 10 }, async (_, lane) => {
        for (let i = lane; i < n; i += 10) {
          const res = await apis[i % apis.length].post("/api/instances", { process });
          expect(res.status, res.text).toBe(200);
          ids.push(res.body.id);
        }
      }),
    );
    return ids;
  }

  async function waitSettled(
    ids: string[],
    timeoutMs = 60_000,
  ): Promise<Array<{ id: string; status: string; task_epoch: number; state: string }>> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const rows = await sql<{ id: string; status: string; task_epoch: number; state: string }[]>`
        select id, status, task_epoch, state from instances where id = any(${ids})`;
      if (rows.every((r) => SETTLED.includes(r.status)) || Date.now() > end) return rows;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("advances every instance exactly once per task across three pumping replicas", async () => {
    const ids = await startMany("steps3", 150);
    const rows = await waitSettled(ids);
    expect(
      rows.filter((r) => r.status !== "completed"),
      "every instance completed",
    ).toEqual([]);
    for (const id of ids) {
      for (const epoch of [1, 2, 3])
        expect(keys.get(`${id}:${epoch}`), `task visit ${id}:${epoch} called exactly once`).toBe(1);
      expect(keys.has(`${id}:4`)).toBe(false);
    }
    const workers = await sql<{ worker: string }[]>`
      select distinct data::jsonb->>'worker' as worker from logs where instance_id = any(${ids}) and event = 'task.started'`;
    expect(workers.length, "the work was shared by more than one replica").toBeGreaterThan(1);
    const lost = await sql<
      { n: number }[]
    >`select count(*)::int as n from instances where id = any(${ids}) and (lease_owner is not null or requested is not null)`;
    expect(lost[0].n, "no lease or request left behind").toBe(0);
  }, 120_000);

  it("pause, resume, cancel and retry racing the pumps leave every tree consistent", async () => {
    const ids = await startMany("flaky5", 120);
    const verbs = ["pause", "resume", "cancel", "retry", "pause", "resume"];
    const outcomes = new Map<string, string[]>();
    const deadline = Date.now() + 4_000;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (Date.now() < deadline) {
          const id = ids[Math.floor(Math.random() * ids.length)];
          const verb = verbs[Math.floor(Math.random() * verbs.length)];
          const api = apis[Math.floor(Math.random() * apis.length)];
          const res = await api.post(`/api/instances/${id}/${verb}${verb === "retry" ? "?force=true" : ""}`);
          expect([200, 202, 204, 409], `${verb} ${id}: ${res.text}`).toContain(res.status);
          if (res.status === 200 || res.status === 202) {
            expect(LIVE.concat(SETTLED)).toContain(res.body.status);
            const list = outcomes.get(id) ?? [];
            list.push(res.body.outcome);
            outcomes.set(id, list);
          }
        }
      }),
    );
    // Let every tree run out: resume what is paused (until nothing is), retry nothing more.
    const end = Date.now() + 60_000;
    let rows = await waitSettled(ids, 1_000);
    while (Date.now() < end) {
      const stopped = await sql<
        { id: string; status: string }[]
      >`select id, status from instances where id = any(${ids}) and status in ('paused', 'pausing')`;
      for (const row of stopped) await apis[0].post(`/api/instances/${row.id}/resume`);
      rows = await waitSettled(ids, 2_000);
      if (rows.every((r) => SETTLED.includes(r.status))) break;
    }
    expect(
      rows.filter((r) => !SETTLED.includes(r.status)).map((r) => r.status),
      "every tree settles",
    ).toEqual([]);
    for (const row of rows) {
      const out = outcomes.get(row.id) ?? [];
      if (out.includes("cancelled")) expect(row.status, `${row.id} was cancelled: terminal`).toBe("cancelled");
      // A cancel that had to drain lands as cancelled unless the in-flight advance settled the instance first.
      if (out.includes("cancelling")) expect(["cancelled", "completed", "failed", "raised"]).toContain(row.status);
      if (row.status === "completed") {
        const state = JSON.parse(row.state);
        expect(Object.keys(state.outputs).sort(), "a completed tree ran every task").toEqual(["a", "b", "c", "d", "e"]);
      }
    }
    const doubled = [...keys].filter(([key, n]) => ids.some((id) => key.startsWith(`${id}:`)) && n > 2);
    expect(doubled, "a task visit is called at most twice (once plus its one 503 retry)").toEqual([]);
    const leftovers = await sql<
      { n: number }[]
    >`select count(*)::int as n from instances where id = any(${ids}) and (lease_owner is not null or requested is not null)`;
    expect(leftovers[0].n, "no lease or request left behind").toBe(0);
    // Every cancelled tree's log ends with its cancellation: nothing advanced it afterwards.
    const after = await sql<{ n: number }[]>`
      select count(*)::int as n from logs l
      join instances i on i.id = l.instance_id and i.status = 'cancelled'
      where l.instance_id = any(${ids}) and l.event in ('task.completed', 'instance.completed')
        and l.created_at > (select max(c.created_at) from logs c where c.instance_id = l.instance_id and c.event = 'instance.cancelled')`;
    expect(after[0].n, "no advance landed after a cancel").toBe(0);
  }, 180_000);

  it("trees spread over three replicas, with pause, resume and cancel racing them, settle consistently", async () => {
    const roots = await startMany("fan10", 30);
    const racing = roots.slice(0, 15);
    // Root id → the root's status in a cancel's answer: `cancelled` (terminal at once) or
    // `cancelling` (the root's own advance was in flight; a result it settles wins, docs/engine.md#operator-verbs).
    const cancelled = new Map<string, string>();
    const deadline = Date.now() + 3_000;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (Date.now() < deadline) {
          const id = racing[Math.floor(Math.random() * racing.length)];
          const verb = ["pause", "resume", "pause", "resume", "cancel"][Math.floor(Math.random() * 5)];
          const res = await apis[Math.floor(Math.random() * apis.length)].post(`/api/instances/${id}/${verb}`);
          expect([200, 202, 204, 409], `${verb} ${id}: ${res.text}`).toContain(res.status);
          if (verb === "cancel" && (res.status === 200 || res.status === 202) && cancelled.get(id) !== "cancelled")
            cancelled.set(id, res.body.status);
        }
      }),
    );
    const end = Date.now() + 90_000;
    let rows = await waitSettled(roots, 1_000);
    while (Date.now() < end) {
      const stopped = await sql<
        { id: string }[]
      >`select id from instances where id = any(${roots}) and status in ('paused', 'pausing')`;
      for (const row of stopped) await apis[0].post(`/api/instances/${row.id}/resume`);
      rows = await waitSettled(roots, 2_000);
      if (rows.every((r) => SETTLED.includes(r.status))) break;
    }
    expect(
      rows.filter((r) => !SETTLED.includes(r.status)).map((r) => `${r.id} ${r.status}`),
      "every tree settles",
    ).toEqual([]);

    const children = await sql<{ id: string; parent_id: string; status: string; task_epoch: number }[]>`
      select id, parent_id, status, task_epoch from instances where parent_id = any(${roots})`;
    for (const row of rows) {
      const mine = children.filter((c) => c.parent_id === row.id);
      const answered = cancelled.get(row.id);
      if (answered === "cancelled" || (answered === "cancelling" && row.status !== "completed")) {
        expect(row.status, `${row.id} was cancelled (answered ${answered}): terminal`).toBe("cancelled");
        for (const c of mine) expect(["cancelled", "completed"], `a child of cancelled ${row.id}`).toContain(c.status);
        continue;
      }
      // Never cancelled, or its collecting advance settled it while the cancel waited: a whole completed tree.
      expect(row.status, `${row.id} was never cancelled, or completed while cancelling`).toBe("completed");
      expect(
        JSON.parse(row.state).outputs.each.map((o: { i: number }) => o.i),
        "collected in element order",
      ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(mine.map((c) => c.status).sort(), `every child of ${row.id} completed`).toEqual(
        Array(10).fill("completed"),
      );
      for (const c of mine) expect(keys.get(`${c.id}:1`), `child ${c.id} called its upstream exactly once`).toBe(1);
    }
    const leftovers = await sql<{ n: number }[]>`
      select count(*)::int as n from instances
      where (id = any(${roots}) or parent_id = any(${roots})) and (lease_owner is not null or requested is not null)`;
    expect(leftovers[0].n, "no lease or request left behind").toBe(0);
    const counters = await sql<
      { n: number }[]
    >`select count(*)::int as n from instances where id = any(${roots}) and status = 'completed' and pending_children <> 0`;
    expect(counters[0].n, "a completed parent's child counter is back to 0").toBe(0);
  }, 180_000);
});
