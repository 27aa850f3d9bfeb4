// Crash safety with real processes (docs/engine.md#the-pump-claims-and-leases): a worker killed with SIGKILL in the middle of a
// fetch leaves its lease behind; after it expires another replica (or the restarted process)
// takes the instance over. An only_once task is not re-run: it raises only_once.interrupted.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  client,
  createGate,
  type Gate,
  json,
  startServer,
  startUpstream,
  type TestServer,
  type Upstream,
  onPostgres,
  until,
} from "@baton/testkit";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy } from "../../support/instances-fixtures.js";

let up: Upstream;
/** Paths whose first request is parked at the test's gate and never released (the victim dies inside it); later ones answer. */
const hangOnce = new Set<string>();
let gate: Gate = createGate();
const hits = new Map<string, number>();

beforeAll(async () => {
  up = await startUpstream((req, res) => {
    const path = req.path.split("?")[0];
    const n = (hits.get(path) ?? 0) + 1;
    hits.set(path, n);
    if (hangOnce.has(path) && n === 1) return gate.hold(res);
    json(res, 200, { path, n });
  });
});
afterAll(async () => {
  await up?.close();
});

/** What the upstream answers: the path and how often it was hit. */
const HIT = {
  type: "object",
  properties: { path: { type: "string" }, n: { type: "integer" } },
  required: ["path", "n"],
};

function definitions(prefix: string) {
  return [
    {
      name: `${prefix}_plain`,
      tasks: [
        {
          id: "call",
          action: { type: "fetch", url: `${up.url}/${prefix}/plain`, timeout: { for: "5m" }, result_schema: HIT },
          output: "$: self.result.n",
        },
        {
          id: "after",
          action: { type: "fetch", url: `${up.url}/${prefix}/after`, result_schema: HIT },
          output: "$: self.result.n",
        },
      ],
    },
    {
      name: `${prefix}_once`,
      tasks: [
        {
          id: "charge",
          only_once: true,
          action: { type: "fetch", url: `${up.url}/${prefix}/charge`, timeout: { for: "5m" }, result_schema: HIT },
          output: "$: self.result.n",
          on_error: [{ code: ["only_once.interrupted"], goto: "$reconcile" }],
          switch: "end",
        },
        { id: "reconcile", output: "$: error.code" },
      ],
    },
  ];
}

async function deployAll(api: ReturnType<typeof client>, prefix: string): Promise<void> {
  for (const def of definitions(prefix)) await deploy(api, def);
}

async function status(api: ReturnType<typeof client>, id: string) {
  return (await api.get(`/api/instances/${id}/detail`)).body;
}

describe.skipIf(!onPostgres)("crash recovery across replicas on PostgreSQL", () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop().catch(() => {});
  });

  it("a replica takes over instances whose worker was killed mid-fetch; only_once raises only_once.interrupted", async () => {
    gate = createGate();
    hangOnce.add("/pg/plain");
    hangOnce.add("/pg/charge");
    const a = await startServer({ args: ["--poll", "100"] });
    servers.push(a);
    const b = await startServer({ args: ["--poll", "100"], database: a.database });
    servers.push(b);
    const apiA = client(a.url);
    await deployAll(apiA, "pg");
    const plain = (await apiA.post("/api/instances", { process: "pg_plain" })).body.id as string;
    const once = (await apiA.post("/api/instances", { process: "pg_once" })).body.id as string;
    await gate.whenParked(2);

    const sql = postgres(a.database, { max: 1, onnotice: () => {} });
    try {
      const workers = new Map<string, TestServer>();
      for (const s of [a, b]) workers.set((await client(s.url).get("/healthz")).body.worker_id, s);
      const owners = await sql<
        { id: string; lease_owner: string }[]
      >`select id, lease_owner from instances where id in (${plain}, ${once})`;
      expect(
        owners.every((o) => o.lease_owner !== null),
        "both instances are leased mid-fetch",
      ).toBe(true);
      // Kill every replica holding one of the leases; the other one must take over. When one
      // replica holds both, the other survives; when they are split, restart a fresh survivor.
      const victims = new Set(owners.map((o) => workers.get(o.lease_owner)!));
      for (const v of victims) await v.kill();
      let survivor = [a, b].find((s) => !victims.has(s));
      if (survivor === undefined) {
        // Pump off (see the PGlite case below): only the ticks claim, after the clock moved.
        survivor = await startServer({ args: ["--poll", "0"], database: a.database });
        servers.push(survivor);
      }
      const api = client(survivor.url);
      // Leases are 10 s: move only the survivor's clock past them instead of waiting.
      await api.post("/api/tick", { advance_ms: 11_000 });
      const p = await until("the plain instance to complete", async () => {
        await api.post("/api/tick");
        const d = await status(api, plain);
        return d.status === "completed" ? d : undefined;
      });
      expect(p.state.outputs.call, "the interrupted call ran again (second hit)").toBe(2);
      const o = await until("the only_once instance to settle", async () => {
        await api.post("/api/tick");
        const d = await status(api, once);
        return d.status === "completed" ? d : undefined;
      });
      expect(o.state.outputs.reconcile).toBe("only_once.interrupted");
      expect(o.state.outputs.charge, "the only_once task never produced an output").toBeUndefined();
      expect(hits.get("/pg/charge"), "the only_once call was not repeated").toBe(1);
      const [row] = await sql<{ previous_owner: string }[]>`select previous_owner from instances where id = ${once}`;
      expect(victims.has(workers.get(row.previous_owner)!), "the dead owner stays recorded").toBe(true);
      const events = (await api.get(`/api/instances/${once}/logs`)).body.items.map((l: any) => l.event);
      expect(events).toContain("lease.reclaimed");
    } finally {
      await sql.end({ timeout: 5 });
    }
  }, 90_000);
});

describe("crash recovery on PGlite: the restarted process resumes", () => {
  let dir: string;
  let server: TestServer | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "baton-crash-"));
  });
  afterAll(async () => {
    await server?.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  it("after kill -9 and a restart on the same data dir, the instance runs on; only_once raises only_once.interrupted", async () => {
    gate = createGate();
    hangOnce.add("/lite/plain");
    hangOnce.add("/lite/charge");
    server = await startServer({ args: ["--poll", "100", "--data-dir", dir] });
    let api = client(server.url);
    await deployAll(api, "lite");
    const plain = (await api.post("/api/instances", { process: "lite_plain" })).body.id as string;
    const once = (await api.post("/api/instances", { process: "lite_once" })).body.id as string;
    await gate.whenParked(2);
    await server.kill();
    // The restarted server's pump is off: only the ticks below claim, each after the clock has
    // moved. With its pump on, a start-up slower than the dead lease (10 s, a loaded machine)
    // let it reclaim on the real clock first, and the clock jump then made its own fresh lease
    // look expired: a second claim, and a third call of the interrupted fetch.
    server = await startServer({ args: ["--poll", "0", "--data-dir", dir] });
    api = client(server.url);
    expect((await status(api, plain)).status, "still running on the dead worker's lease").toBe("running");
    await api.post("/api/tick", { advance_ms: 11_000 });
    const p = await until("the plain instance to complete", async () => {
      await api.post("/api/tick");
      const d = await status(api, plain);
      return d.status === "completed" ? d : undefined;
    });
    expect(p.state.outputs.call).toBe(2);
    const o = await until("the only_once instance to settle", async () => {
      await api.post("/api/tick");
      const d = await status(api, once);
      return d.status === "completed" ? d : undefined;
    });
    expect(o.state.outputs.reconcile).toBe("only_once.interrupted");
    expect(hits.get("/lite/charge")).toBe(1);
  }, 90_000);
});
