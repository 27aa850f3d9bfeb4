import {
  client,
  onPostgres,
  type PrivatePostgres,
  startPrivatePostgres,
  startServer,
  type TestServer,
  until,
} from "@baton/testkit";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, deploy, start } from "../../support/instances-fixtures.js";

// --read-db (docs/deploy.md "Read replicas"): a real streaming replica made by pg_basebackup.
// Reads go to it while it is within --read-db-max-lag of the primary, and to the primary when it
// falls behind (its replay paused here); writes never go to it. PostgreSQL only.

const MAX_LAG_MS = 500;
let primary: PrivatePostgres;
let replica: PrivatePostgres;
let server: TestServer;
let api: Api;
let onReplica: postgres.Sql;

describe.skipIf(!onPostgres)("a server with --read-db on a streaming replica", () => {
  beforeAll(async () => {
    primary = await startPrivatePostgres();
    replica = await primary.streamingReplica();
    server = await startServer({
      database: primary.url,
      args: ["--poll", "20", "--read-db", replica.url, "--read-db-max-lag", String(MAX_LAG_MS)],
    });
    api = client(server.url);
    onReplica = postgres(replica.url, { max: 1, onnotice: () => {} });
    await deploy(api, { name: "one", tasks: [{ id: "only" }] });
  });
  afterAll(async () => {
    await onReplica?.end({ timeout: 1 });
    await server?.stop();
    await primary?.destroy();
  });

  it("writes on the primary and reads what the replica has replayed", async () => {
    const { id } = await start(api, { process: "one" });
    await until("the instance completed, seen through the reads", async () => {
      const view = await api.get(`/api/instances/${id}`);
      return view.status === 200 && view.body.status === "completed" ? true : undefined;
    });
    // The replica holds the row: the server's reads can have come from it.
    const [row] = await onReplica`select status from instances where id = ${id}`;
    expect(row?.status).toBe("completed");
    const list = await api.get("/api/instances?process=one");
    expect(list.body.items.map((i: { id: string }) => i.id)).toContain(id);
    const counts = await api.get("/api/instances/counts?by=status&process=one");
    expect(counts.body.total).toBe(1);
    expect((await api.get("/api/definitions?name=one")).body.items).toHaveLength(1);
  });

  it("reads from the primary while the replica is behind more than --read-db-max-lag, and from the replica again once it caught up", async () => {
    await onReplica`select pg_wal_replay_pause()`;
    const { id } = await start(api, { process: "one" });
    // The replica cannot see it; the server's reads must, once the bound has passed.
    await until("the paused replica is past its bound: the new instance is read from the primary", async () => {
      const view = await api.get(`/api/instances/${id}`);
      return view.status === 200 && view.body.status === "completed" ? true : undefined;
    });
    expect(await onReplica`select id from instances where id = ${id}`).toHaveLength(0);
    const list = await api.get("/api/instances?process=one");
    expect(list.body.items.map((i: { id: string }) => i.id)).toContain(id);
    expect((await api.get("/api/instances/counts?process=one")).body.total).toBe(2);

    await onReplica`select pg_wal_replay_resume()`;
    await until("the replica replayed the instance", async () => {
      const rows = await onReplica`select id from instances where id = ${id}`;
      return rows.length === 1 ? true : undefined;
    });
    expect((await api.get(`/api/instances/${id}`)).body.status).toBe("completed");
  });

  it("a multi-host URL with target_session_attrs=read-write naming the standby first reaches the primary", async () => {
    // docs/deploy.md "High availability": a hot standby is not read-write (patches/postgres@3.4.9.patch),
    // so a URL listing every node of a Patroni cluster finds the writable one.
    const hosts = [replica.url, primary.url].map((u) => new URL(u).host).join(",");
    const sql = postgres(
      `postgres://postgres@${hosts}${new URL(primary.url).pathname}?target_session_attrs=read-write`,
      {
        max: 1,
        onnotice: () => {},
      },
    );
    try {
      const [row] = await sql`select pg_is_in_recovery() as recovery, inet_server_port() as port`;
      expect(row).toEqual({ recovery: false, port: Number(new URL(primary.url).port) });
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("keeps serving reads from the primary when the replica stops, and writes never needed it", async () => {
    await replica.stop("immediate");
    const { id } = await start(api, { process: "one" });
    await until("the instance is read from the primary with the replica down", async () => {
      const view = await api.get(`/api/instances/${id}`);
      return view.status === 200 && view.body.status === "completed" ? true : undefined;
    });
    expect((await api.get("/api/instances/counts?process=one")).body.total).toBe(3);
    await replica.start();
  });
});
