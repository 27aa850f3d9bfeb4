// docs/limits.md#trees: the tree instance limit is exact across replicas. Two api processes on
// one PostgreSQL database run the spawns of one tree at once; their reservations queue on the
// root's row lock and the tree ends at exactly --limit-tree-instances. Row-lock concurrency only
// means something on PostgreSQL: PGlite has a single connection.
import { client, onPostgres, settled, startServer, type TestServer, until } from "@baton/testkit";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const LIMIT = 60;

describe.skipIf(!onPostgres)("the tree instance limit across replicas", () => {
  const servers: TestServer[] = [];
  let sql: ReturnType<typeof postgres>;

  beforeAll(async () => {
    const args = ["--poll", "20", "--max-concurrent", "20", "--limit-tree-instances", String(LIMIT)];
    servers.push(await startServer({ args }));
    servers.push(await startServer({ args, database: servers[0].database }));
    sql = postgres(servers[0].database, { max: 1, onnotice: () => {} });
    const api = client(servers[0].url);
    // Spawns two of itself per level: grows until the limit stops it.
    for (const def of [
      { name: "grow", tasks: [{ id: "more", action: { type: "child_list", name: "grow", over: "$: [{}, {}]" } }] },
      // 1 + 3 + 2k instances: a tree of exactly LIMIT (even) is reachable.
      {
        name: "forest",
        tasks: [{ id: "plant", action: { type: "child_list", name: "grow", over: "$: [{}, {}, {}]" } }],
      },
    ])
      expect((await api.put("/api/definitions", def)).status).toBeLessThan(300);
  }, 120_000);

  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    for (const s of servers) await s.stop();
  });

  it("ends a tree spawning on two replicas at exactly the limit, never past it", async () => {
    const started = await client(servers[1].url).post("/api/instances", { process: "forest" });
    expect(started.status, started.text).toBe(200);
    const id = String(started.body.id);
    const root = await settled(client(servers[0].url), id);
    expect(root.status).toBe("failed");
    // The branches still running after the root failed try to spawn, and fail, too.
    const rows = await until("every instance of the tree to settle", async () => {
      const [r] = await sql<{ live: number; n: number; tree_size: number; reserved: number }[]>`
        SELECT count(*) FILTER (WHERE status IN ('running', 'pausing', 'paused', 'failing', 'cancelling'))::int AS live,
               count(*)::int AS n, max(tree_size)::int AS tree_size, sum(reserved_children)::int AS reserved
        FROM instances WHERE root_id = ${id}`;
      return r.live === 0 ? r : undefined;
    });
    expect(rows).toMatchObject({ n: LIMIT, tree_size: LIMIT, reserved: 0 });
  }, 120_000);
});
