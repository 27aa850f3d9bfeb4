// Schedules on real servers (docs/schedules.md "The firing pass"): the HTTP surface, catch-up
// after a stopped server, and two replicas on one PostgreSQL — one killed with SIGKILL again and
// again while firing, or the database crashing and starting again — leaving exactly one
// instance per fire time and no gap.
import {
  client,
  onPostgres,
  type PrivatePostgres,
  type SharedDatabase,
  sharedDatabase,
  startPrivatePostgres,
  startServer,
  type TestServer,
  until,
} from "@baton/testkit";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { deploy } from "../../support/instances-fixtures.js";

const quick = {
  name: "quick",
  input_schema: { type: "object", properties: { at: { type: "string" } }, required: ["at"] },
  tasks: [{ id: "done", output: "$: input.at" }],
};

const servers: TestServer[] = [];
const databases: SharedDatabase[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => {});
  for (const d of databases) await d.dispose().catch(() => {});
});

async function started(database: string, args: string[]): Promise<TestServer> {
  const server = await startServer({ database, args });
  servers.push(server);
  return server;
}

describe("schedules over HTTP", () => {
  it("creates, shows, triggers, backfills, pauses and deletes; refuses a bad cron naming the field", async () => {
    const db = await sharedDatabase();
    databases.push(db);
    const a = await started(db.location, ["--poll", "0"]);
    const api = client(a.url);
    await deploy(api, quick);
    const bad = await api.put("/api/schedules/nightly", { process: "quick", cron: ["0 0 * *"], input: { at: "x" } });
    expect(bad.status).toBe(400);
    expect(bad.body.fields[0].path).toBe("body.cron[0]");
    const put = await api.put("/api/schedules/nightly", {
      process: "quick",
      cron: ["0 2 * * *"],
      time_zone: "Europe/Berlin",
      input: { at: "$: schedule.fire_time" },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.created).toBe(true);
    expect(put.body.next_fire_times).toHaveLength(5);
    const fire = await api.post("/api/schedules/nightly/trigger");
    expect(fire.status, fire.text).toBe(200);
    expect(fire.body.outcome).toBe("started");
    const back = await api.post("/api/schedules/nightly/backfill", {
      from: "2026-01-01T00:00:00Z",
      to: "2026-01-03T00:00:00Z",
    });
    expect(back.status, back.text).toBe(200);
    expect(back.body.fires.map((f: { fire_time: string }) => f.fire_time)).toEqual([
      "2026-01-01T01:00:00.000Z",
      "2026-01-02T01:00:00.000Z",
    ]);
    const shown = await api.get("/api/schedules/nightly");
    expect(shown.body.fires).toHaveLength(3);
    const metrics = (await api.get("/metrics")).text;
    expect(metrics).toContain('baton_schedule_fires_total{origin="backfill",outcome="started"} 2');
    expect(metrics).toContain('baton_schedule_fires_total{origin="trigger",outcome="started"} 1');
    const keyed = await api.get(
      `/api/instances?key=${encodeURIComponent("schedule:nightly:2026-01-02T01:00:00.000Z")}`,
    );
    expect(keyed.body.items).toHaveLength(1);
    expect((await api.post("/api/schedules/nightly/pause")).body.paused).toBe(true);
    expect((await api.get("/api/schedules")).body.items.map((s: { name: string }) => s.name)).toEqual(["nightly"]);
    expect((await api.delete("/api/schedules/nightly")).body).toEqual({ deleted: true });
    expect((await api.get("/api/schedules/nightly")).status).toBe(404);
  });

  it("warns in compat when a promote would move a bound schedule onto a version that refuses its input, and the fire then fails with the reason", async () => {
    const db = await sharedDatabase();
    databases.push(db);
    const api = client((await started(db.location, ["--poll", "0"])).url);
    await deploy(api, quick);
    const strict = {
      ...quick,
      input_schema: { type: "object", properties: { at: { type: "integer" } }, required: ["at"] },
    };
    await deploy(api, strict);
    expect((await api.put("/api/channels", { name: "quick", channel: "prod", version: 1 })).status).toBe(200);
    expect((await api.put("/api/channels", { name: "quick", channel: "next", version: 2 })).status).toBe(200);
    const put = await api.put("/api/schedules/on-prod", {
      process: "quick",
      channel: "prod",
      every: "1m",
      input: { at: "$: schedule.fire_time" },
    });
    expect(put.status, put.text).toBe(200);
    const compat = await api.post("/api/definitions/compat", { from: { channel: "prod" }, to: { channel: "next" } });
    expect(compat.status, compat.text).toBe(200);
    expect(compat.body.schedule_warnings).toHaveLength(1);
    expect(compat.body.schedule_warnings[0]).toMatchObject({ schedule: "on-prod", process: "quick", version: 2 });
    expect(compat.body.schedule_warnings[0].message).toMatch(/body\.input\.at/);
    const unrelated = await api.post("/api/definitions/compat", { from: { channel: "next" }, to: { channel: "prod" } });
    expect(unrelated.body.schedule_warnings, "a SPEC client sees no new field when nothing warns").toBeUndefined();
    expect((await api.post("/api/channels/promote", { from: "next", to: "prod" })).status).toBe(200);
    await api.post("/api/tick", { advance_ms: 61_000 });
    const [fire] = (await api.get("/api/schedules/on-prod")).body.fires;
    expect(fire.outcome).toBe("failed");
    expect(fire.reason).toMatch(/input_schema of process "quick"/);
  });

  it("catches up after a stopped server: the fires inside the window run, older ones are recorded missed", async () => {
    const db = await sharedDatabase();
    databases.push(db);
    const a = await started(db.location, ["--poll", "0"]);
    await deploy(client(a.url), quick);
    const put = await client(a.url).put("/api/schedules/minutely", {
      process: "quick",
      every: "1m",
      catchup_window: "3m",
      overlap: "allow_all",
      input: { at: "$: schedule.fire_time" },
    });
    expect(put.status, put.text).toBe(200);
    await a.stop();
    // The next server's clock is 10 minutes on: the schedule's fires of those minutes were missed.
    const b = await started(db.location, ["--poll", "0"]);
    const api = client(b.url);
    await api.post("/api/tick", { advance_ms: 10 * 60_000 });
    const shown = (await api.get("/api/schedules/minutely")).body;
    const outcomes = shown.fires.map((f: { outcome: string }) => f.outcome);
    expect(outcomes.filter((o: string) => o === "missed")).toHaveLength(1);
    const ran = outcomes.filter((o: string) => o === "started").length;
    expect(ran).toBeGreaterThanOrEqual(3);
    expect(ran).toBeLessThanOrEqual(4);
  });
});

describe.skipIf(!onPostgres)("two replicas on one PostgreSQL", () => {
  it("fire exactly once with no gap while their database connections are killed mid-pass", async () => {
    const db = await sharedDatabase();
    databases.push(db);
    const a = await started(db.location, ["--poll", "20"]);
    const b = await started(db.location, ["--poll", "20"]);
    const api = client(a.url);
    await deploy(api, quick);
    const names = Array.from({ length: 10 }, (_, i) => `cut-${i}`);
    expect(a.child.exitCode, a.stderr().slice(-3000)).toBeNull();
    for (const name of names) {
      const put = await api.put(`/api/schedules/${name}`, {
        process: "quick",
        cron: ["* * * * * *"],
        overlap: "allow_all",
        catchup_window: "1h",
        input: { at: "$: schedule.fire_time" },
      });
      expect(put.status, put.text).toBe(200);
    }
    const sql = postgres(db.location, { max: 1, onnotice: () => {} });
    try {
      let killed = 0;
      while (killed < 5) {
        // A backend inside a firing pass: its transaction holds schedule rows (FOR UPDATE).
        const [inPass] = await until("a backend inside a firing pass", async () => {
          const rows = await sql<{ pid: number }[]>`
            select l.pid from pg_locks l join pg_class c on c.oid = l.relation
            where c.relname = 'schedules' and l.mode = 'RowShareLock' and l.pid <> pg_backend_pid() limit 1`;
          return rows.length > 0 ? rows : undefined;
        });
        await sql`select pg_terminate_backend(${inPass!.pid})`;
        killed++;
      }
      const before = Number((await sql`SELECT count(*)::int AS n FROM schedule_fires`)[0]!.n);
      await until("both replicas to fire again after the kills", async () =>
        Number((await sql`SELECT count(*)::int AS n FROM schedule_fires`)[0]!.n) > before + 100 ? true : undefined,
      );
      for (const s of [a, b]) expect(s.child.exitCode, "the replica survived").toBeNull();
      for (const name of names) await api.post(`/api/schedules/${name}/pause`);
      await expectOncePerFireTime(sql, names);
    } finally {
      await sql.end();
    }
  }, 300_000);

  it("fire exactly one instance per fire time, with no gap, while one is killed with SIGKILL mid-fire again and again", async () => {
    const db = await sharedDatabase();
    databases.push(db);
    const args = ["--poll", "20"];
    const b = await started(db.location, args);
    const api = client(b.url);
    await deploy(api, quick);
    const names = Array.from({ length: 20 }, (_, i) => `tick-${i}`);
    for (const name of names) {
      const put = await api.put(`/api/schedules/${name}`, {
        process: "quick",
        cron: ["* * * * * *"],
        overlap: "allow_all",
        catchup_window: "1h",
        input: { at: "$: schedule.fire_time" },
      });
      expect(put.status, put.text).toBe(200);
    }
    const sql = postgres(db.location, { max: 1, onnotice: () => {} });
    try {
      const fires = async () => Number((await sql`SELECT count(*)::int AS n FROM schedule_fires`)[0]!.n);
      for (let round = 0; round < 4; round++) {
        const victim = await started(db.location, args);
        const before = await fires();
        // Killed while both replicas fire: 20 schedules every second keep a pass open most of the time.
        await until("the victim's replica set to fire more", async () =>
          (await fires()) > before + 40 ? true : undefined,
        );
        await victim.kill();
      }
      for (const name of names) await api.post(`/api/schedules/${name}/pause`);
      await expectOncePerFireTime(sql, names);
    } finally {
      await sql.end();
    }
  }, 300_000);
});

describe.skipIf(!onPostgres)("two replicas whose PostgreSQL crashes and starts again", () => {
  let pg: PrivatePostgres | undefined;
  afterAll(async () => {
    await pg?.destroy();
  });

  it("fire exactly one instance per fire time, with no gap across the outage", async () => {
    pg = await startPrivatePostgres();
    const a = await started(pg.url, ["--poll", "20"]);
    const b = await started(pg.url, ["--poll", "20"]);
    const api = client(a.url);
    await deploy(api, quick);
    const names = Array.from({ length: 5 }, (_, i) => `outage-${i}`);
    for (const name of names) {
      const put = await api.put(`/api/schedules/${name}`, {
        process: "quick",
        cron: ["* * * * * *"],
        overlap: "allow_all",
        catchup_window: "1h",
        input: { at: "$: schedule.fire_time" },
      });
      expect(put.status, put.text).toBe(200);
    }
    const fires = async () => {
      const sql = postgres(pg!.url, { max: 1, onnotice: () => {} });
      try {
        return Number((await sql`SELECT count(*)::int AS n FROM schedule_fires`)[0]!.n);
      } finally {
        await sql.end({ timeout: 1 });
      }
    };
    await until("the replicas to fire", async () => ((await fires()) > 20 ? true : undefined));
    // A crash (no checkpoint, every backend killed) while both replicas fire every second.
    await pg.stop("immediate");
    for (const s of [a, b])
      await until("the replica to see the database gone", async () =>
        (
          await client(s.url)
            .get("/readyz")
            .catch(() => undefined)
        )?.status === 503
          ? true
          : undefined,
      );
    await pg.start();
    const before = await fires();
    await until("both replicas to fire again, the missed seconds included", async () =>
      (await fires()) > before + 40 ? true : undefined,
    );
    for (const s of [a, b]) expect(s.child.exitCode, "the replica survived the outage").toBeNull();
    for (const name of names) expect((await api.post(`/api/schedules/${name}/pause`)).status).toBe(200);
    const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      await expectOncePerFireTime(sql, names);
    } finally {
      await sql.end({ timeout: 1 });
    }
  }, 300_000);
});

/** Every schedule in `names` fired every second from its first fire to its last, each time once. */
async function expectOncePerFireTime(sql: postgres.Sql, names: string[]): Promise<void> {
  const rows = await sql<{ schedule: string; fire_at: string; outcome: string; instance_id: string | null }[]>`
    SELECT schedule, fire_at::text, outcome, instance_id FROM schedule_fires ORDER BY schedule, fire_at`;
  const instances = await sql<{ key: string; n: number }[]>`
    SELECT key, count(*)::int AS n FROM instances WHERE key LIKE 'schedule:%' GROUP BY key`;
  expect(instances.filter((r) => r.n > 1)).toEqual([]);
  expect(rows.every((r) => r.outcome === "started" && r.instance_id !== null)).toBe(true);
  expect(instances.length).toBe(rows.length);
  for (const name of names) {
    const times = rows.filter((r) => r.schedule === name).map((r) => Number(r.fire_at));
    expect(times.length).toBeGreaterThan(5);
    // Every second from the first fire to the last: no gap.
    expect(times.at(-1)! - times[0]!).toBe((times.length - 1) * 1000);
  }
}
