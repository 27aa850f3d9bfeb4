// The one-statement resolve (docs/engine.md "Resolving an external task") under races: two
// replicas with their pumps on answer the same claims at once, and stale tokens arrive both at
// the replica that handed the claim out (it remembers the claim's facts) and at one that does
// not. Row-lock races only mean something on PostgreSQL: PGlite has a single connection.
import { client, onPostgres, startServer, type TestServer } from "@baton/testkit";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ask = {
  name: "race_ask",
  tasks: [
    {
      id: "ask",
      action: {
        type: "external",
        result_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      },
    },
  ],
  output: { n: "$: outputs.ask.n" },
};

describe.skipIf(!onPostgres)("resolve racing across two replicas", () => {
  const servers: TestServer[] = [];
  let apis: Array<ReturnType<typeof client>>;
  let sql: ReturnType<typeof postgres>;

  beforeAll(async () => {
    const first = await startServer({ args: ["--poll", "50"] });
    servers.push(first, await startServer({ args: ["--poll", "50"], database: first.database }));
    apis = servers.map((s) => client(s.url));
    sql = postgres(first.database, { max: 2, onnotice: () => {} });
    const res = await apis[0].put("/api/definitions", ask);
    expect(res.status, res.text).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    for (const s of servers) await s.stop();
  });

  async function parkMany(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await apis[i % 2].post("/api/instances", { process: ask.name });
      expect(res.status, res.text).toBe(200);
      ids.push(res.body.id);
    }
    for (;;) {
      const [{ parked }] = await sql`
        select count(*)::int as parked from instances where id = any(${ids}) and phase = 'external'`;
      if (parked === n) return ids;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function claimAll(n: number, body: Record<string, unknown> = {}): Promise<Array<{ token: string }>> {
    const items: Array<{ token: string }> = [];
    while (items.length < n) {
      const res = await apis[0].post("/api/external-tasks/claim", {
        worker_id: "w-a",
        limit: 100,
        process: ask.name,
        ...body,
      });
      expect(res.status, res.text).toBe(200);
      items.push(...res.body.items);
    }
    return items;
  }

  async function waitCompleted(ids: string[]): Promise<Array<{ id: string; status: string; output: string }>> {
    for (;;) {
      const rows = await sql<{ id: string; status: string; output: string }[]>`
        select id, status, output from instances where id = any(${ids})`;
      if (rows.every((r) => r.status !== "running")) return rows;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it("the same token answered on both replicas at once lands exactly once, and every instance completes once", async () => {
    const ids = await parkMany(40);
    const items = await claimAll(ids.length);
    const answers = await Promise.all(
      items.flatMap((item, i) =>
        [0, 1].map((replica) =>
          apis[replica].post("/api/external-tasks/resolve", { token: item.token, result: { n: i * 10 + replica } }),
        ),
      ),
    );
    for (let i = 0; i < items.length; i++) {
      const pair = [answers[2 * i], answers[2 * i + 1]];
      expect(pair.map((a) => a.status).sort(), JSON.stringify(pair.map((a) => a.body))).toEqual([200, 409]);
    }
    const rows = await waitCompleted(ids);
    expect(rows.map((r) => r.status)).toEqual(ids.map(() => "completed"));
    // The output is the answer that won: one of the two sent for its claim.
    const sent = new Set(items.flatMap((_, i) => [i * 10, i * 10 + 1]));
    expect(rows.every((r) => sent.has(JSON.parse(r.output).n))).toBe(true);
    const logs = await sql<{ instance_id: string; event: string; n: number }[]>`
      select instance_id, event, count(*)::int as n from logs
      where instance_id = any(${ids}) and event in ('external.resolved', 'instance.completed')
      group by instance_id, event`;
    expect(logs.length).toBe(2 * ids.length);
    expect(
      logs.every((l) => l.n === 1),
      "one resolve line and one completion line per instance",
    ).toBe(true);
    const leftovers = await sql`select 1 from external_waits where instance_id = any(${ids})`;
    expect(leftovers.length, "every claim row is gone").toBe(0);
  });

  it("a stale token is refused on the replica that issued it and on the other; the current one lands", async () => {
    const [id] = await parkMany(1);
    const [stale] = await claimAll(1, { lease_ms: 1000 });
    // Let the short claim lapse, then another worker claims the same task on the other replica.
    await new Promise((r) => setTimeout(r, 1200));
    let fresh: { token: string } | undefined;
    while (fresh === undefined) {
      const res = await apis[1].post("/api/external-tasks/claim", { worker_id: "w-b", process: ask.name });
      expect(res.status, res.text).toBe(200);
      fresh = res.body.items[0];
      if (fresh === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    for (const api of apis) {
      const late = await api.post("/api/external-tasks/resolve", { token: stale.token, result: { n: 1 } });
      expect(late.status, late.text).toBe(409);
      expect(late.body.error).toContain("no longer live");
    }
    const ok = await apis[0].post("/api/external-tasks/resolve", { token: fresh.token, result: { n: 2 } });
    expect(ok.status, ok.text).toBe(200);
    const [row] = await waitCompleted([id]);
    expect(row.status).toBe("completed");
    expect(JSON.parse(row.output)).toEqual({ n: 2 });
  });
});
