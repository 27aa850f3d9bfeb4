// A replica outlives its database (docs/engine.md, "When the database goes away"): a connection
// that dies inside a transaction never takes the process down (the driver's rollback on the
// dead socket must not throw from a timer nobody can catch), waits are bounded, and while the
// database is gone every request that needs it answers 503 `unavailable` with Retry-After.
// PostgreSQL only: PGlite runs in-process and cannot go away.
import {
  client,
  createTestDatabase,
  dropTestDatabase,
  type PrivatePostgres,
  startPrivatePostgres,
  startServer,
  type TestServer,
  onPostgres,
  until,
} from "@baton/testkit";
import postgres from "postgres";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { deployAndStart } from "../../support/instances-fixtures.js";

const parked = { name: "parked", tasks: [{ id: "wait", action: { type: "delay", for: "1h" } }] };

function alive(server: TestServer): boolean {
  return server.child.exitCode === null && server.child.signalCode === null;
}

/** Starts a running instance and holds its row locked so that a pause must wait on it. */
async function pauseWaitingOnALock(server: TestServer, sql: postgres.Sql) {
  const api = client(server.url);
  const id = await deployAndStart(api, parked);
  await until("the instance to park on its delay", async () =>
    (await api.get(`/api/instances/${id}`)).body.status === "running" ? true : undefined,
  );
  const locker = await sql.reserve();
  await locker`begin`;
  await locker`select id from instances where id = ${id} for update`;
  const pause = api.post(`/api/instances/${id}/pause`);
  const [waiting] = await until("the pause to wait on the row lock", async () => {
    const rows = await locker<{ pid: number }[]>`
      select pid from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`;
    return rows.length > 0 ? rows : undefined;
  });
  return { api, id, pause, locker, backend: waiting!.pid };
}

describe.skipIf(!onPostgres)("a replica whose database connection dies", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => {});
  });

  it("survives pg_terminate_backend of a transaction waiting on a row lock; the request answers 503 unavailable", async () => {
    const server = await startServer({ args: ["--poll", "100"] });
    cleanups.push(() => server.stop());
    const sql = postgres(server.database, { max: 2, onnotice: () => {} });
    cleanups.push(() => sql.end({ timeout: 1 }));
    const { api, id, pause, locker, backend } = await pauseWaitingOnALock(server, sql);
    await sql`select pg_terminate_backend(${backend})`;
    const answer = await pause;
    // A rollback on the dead socket thrown from the driver's timer would exit 1 within 50 ms.
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(server), server.stderr()).toBe(true);
    expect(answer.status, answer.text).toBe(503);
    expect(answer.body.code).toBe("unavailable");
    expect(answer.headers.get("retry-after")).toBe("1");
    await locker`rollback`;
    locker.release();
    // Still serving, on new connections: the probe and the same verb again.
    expect((await api.get("/healthz")).status).toBe(200);
    const again = await api.post(`/api/instances/${id}/pause`);
    expect([200, 202], again.text).toContain(again.status);
    expect(["paused", "pausing"]).toContain(again.body.outcome);
    expect(alive(server), server.stderr()).toBe(true);
  }, 60_000);
});

describe.skipIf(!onPostgres)("statement timeouts and start-up", () => {
  it("a replica waiting for another's migration longer than --db-statement-timeout still starts", async () => {
    const url = await createTestDatabase();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    let server: TestServer | undefined;
    try {
      const holder = await sql.reserve();
      // The lock a migrating replica holds (storage/db.ts MIGRATION_LOCK_KEY).
      await holder`select pg_advisory_lock(7114200211)`;
      const starting = startServer({ args: ["--poll", "100", "--db-statement-timeout", "200"], database: url });
      starting.catch(() => {});
      await until("the replica to wait on the migration lock", async () => {
        const rows = await holder`
          select 1 from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query like '%pg_advisory_lock%'
            and pid <> pg_backend_pid()`;
        return rows.length > 0 ? true : undefined;
      });
      // Well past the statement timeout while it waits.
      await new Promise((r) => setTimeout(r, 1_000));
      await holder`select pg_advisory_unlock(7114200211)`;
      holder.release();
      server = await starting;
      expect((await client(server.url).get("/healthz")).status).toBe(200);
    } finally {
      await server?.stop();
      await sql.end({ timeout: 1 });
      await dropTestDatabase(url);
    }
  }, 60_000);
});

describe.skipIf(!onPostgres)("a replica whose PostgreSQL stops and starts again", () => {
  let pg: PrivatePostgres | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => {});
    await pg?.destroy();
  });

  it("survives the stop under a waiting transaction, answers 503 unavailable while down, 200 once back, and runs on", async () => {
    pg = await startPrivatePostgres();
    const server = await startServer({ args: ["--poll", "100"], database: pg.url });
    cleanups.push(() => server.stop());
    const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
    cleanups.push(() => sql.end({ timeout: 1 }));
    const { api, id, pause } = await pauseWaitingOnALock(server, sql);

    await pg.stop("immediate");
    const answer = await pause;
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(server), server.stderr()).toBe(true);
    expect(answer.status, answer.text).toBe(503);
    expect(answer.body.code).toBe("unavailable");

    // Down: the probe says so (bounded by --db-ping-timeout), and every request that needs the
    // database answers 503 unavailable with Retry-After instead of 500 or hanging.
    const health = await api.get("/healthz");
    expect(health.status).toBe(503);
    expect(health.body.status).toBe("unavailable");
    // Liveness never touches the database (restart on it only); readiness says why it is not ready.
    const live = await api.get("/livez");
    expect(live.status, live.text).toBe(200);
    expect(live.body.status).toBe("ok");
    const ready = await api.get("/readyz");
    expect(ready.status, ready.text).toBe(503);
    expect(ready.body).toMatchObject({ status: "unavailable", reason: "database", database: "postgres" });
    for (const [what, call] of [
      ["start", () => api.post("/api/instances", { process: "parked" })],
      ["list", () => api.get("/api/instances")],
      ["detail", () => api.get(`/api/instances/${id}/detail`)],
      ["verb", () => api.post(`/api/instances/${id}/cancel`)],
      ["claim", () => api.post("/api/external-tasks/claim", { worker_id: "w" })],
      ["definitions", () => api.get("/api/definitions")],
    ] as const) {
      const res = await call();
      expect(res.status, `${what}: ${res.text}`).toBe(503);
      expect(res.body.code, what).toBe("unavailable");
      expect(res.headers.get("retry-after"), what).toBe("1");
    }
    expect(alive(server), server.stderr()).toBe(true);

    await pg.start();
    await until("/healthz to answer 200 again", async () =>
      (await api.get("/healthz").catch(() => undefined))?.status === 200 ? true : undefined,
    );
    expect((await api.get("/readyz")).body.status).toBe("ready");
    const paused = await api.post(`/api/instances/${id}/pause`);
    expect([200, 202], paused.text).toContain(paused.status);
    expect(["paused", "pausing"]).toContain(paused.body.outcome);
    const started = await api.post("/api/instances", { process: "parked" });
    expect(started.status, started.text).toBe(200);
    expect(alive(server), server.stderr()).toBe(true);
  }, 120_000);
});
