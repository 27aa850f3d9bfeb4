// A slot holder killed with SIGKILL (docs/flow-control.md "Slots"): its instance keeps the slot
// while its lease lapses, the replica that reclaims it runs on with that slot, and the waiters
// of its key get the slot only when it has moved on. The upstream counts calls per key that
// overlap: never two for one key, across two replicas on PostgreSQL and across a restart on PGlite.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  client,
  createGate,
  type Gate,
  json,
  onPostgres,
  startServer,
  startUpstream,
  type TestServer,
  type Upstream,
  until,
} from "@baton/testkit";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, deploy } from "../../support/instances-fixtures.js";

let up: Upstream;
let gate: Gate;
/** Keys whose first call is parked at the gate and never answered (its caller dies inside it). */
const holdFirst = new Set<string>();
const calls = new Map<string, number>();
/** The instances calling, in the order their calls arrived. */
const order: string[] = [];
const open = new Map<string, number>();
let overlaps = 0;

beforeAll(async () => {
  up = await startUpstream((req, res) => {
    const query = new URL(req.path, "http://x").searchParams;
    const key = query.get("key") ?? "";
    order.push(query.get("who") ?? "");
    const n = (calls.get(key) ?? 0) + 1;
    calls.set(key, n);
    if ((open.get(key) ?? 0) > 0) overlaps++;
    open.set(key, (open.get(key) ?? 0) + 1);
    res.on("close", () => open.set(key, (open.get(key) ?? 1) - 1));
    if (holdFirst.has(key) && n === 1) return gate.hold(res);
    json(res, 200, { n });
  });
});
afterAll(async () => {
  await up?.close();
});

const definition = (name: string) => ({
  name,
  input_schema: {
    type: "object",
    properties: { key: { type: "string" }, who: { type: "string" } },
    required: ["key", "who"],
  },
  tasks: [
    {
      id: "call",
      action: {
        type: "fetch",
        method: "get",
        url: `${up.url}/call`,
        query: { key: "$: input.key", who: "$: input.who" },
        timeout: { for: "5m" },
      },
      concurrency: { key: "$: input.key", limit: 1 },
    },
  ],
});

/** Starts one instance per key; `who` (in the upstream's order) is `<tag>-<index>`. */
async function startAll(api: Api, process: string, keys: string[], tag = process): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, key] of keys.entries()) {
    const res = await api.post("/api/instances", { process, input: { key, who: `${tag}-${i}` } });
    expect(res.status, res.text).toBe(200);
    ids.push(res.body.id);
  }
  return ids;
}

async function waiting(api: Api, id: string): Promise<boolean> {
  const logs = (await api.get(`/api/instances/${id}/logs`)).body.items as Array<{ event: string }>;
  return logs.some((l) => l.event === "flow.waiting");
}

async function settleAll(api: Api, ids: string[]): Promise<void> {
  await until("every instance to complete", async () => {
    await api.post("/api/tick");
    for (const id of ids) if ((await api.get(`/api/instances/${id}`)).body.status !== "completed") return undefined;
    return true;
  });
}

describe.skipIf(!onPostgres)("a killed slot holder, two replicas on PostgreSQL", () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop().catch(() => {});
  });

  it("keeps the slot with the dead holder's instance until a replica reclaims it and it moves on", async () => {
    gate = createGate();
    holdFirst.add("pg-k");
    const a = await startServer({ args: ["--poll", "100"] });
    servers.push(a);
    const b = await startServer({ args: ["--poll", "100"], database: a.database });
    servers.push(b);
    const apiA = client(a.url);
    await deploy(apiA, definition("slots_pg"));
    const [holder, ...rest] = await startAll(apiA, "slots_pg", ["pg-k", "pg-k", "pg-k"]);
    const other = await startAll(client(b.url), "slots_pg", ["pg-j"], "other");
    await gate.whenParked(1);
    await until("the other calls of the key to wait", async () =>
      (await Promise.all(rest.map((id) => waiting(apiA, id)))).every(Boolean) ? true : undefined,
    );
    const sql = postgres(a.database, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql<{ id: string; lease_owner: string }[]>`
        SELECT i.id, i.lease_owner FROM flow_slots s JOIN instances i ON i.id = s.instance_id WHERE s.key = 'pg-k'`;
      expect(row.id, "the first start holds the slot").toBe(holder);
      const owners = new Map<string, TestServer>();
      for (const s of [a, b]) owners.set((await client(s.url).get("/healthz")).body.worker_id, s);
      const victim = owners.get(row.lease_owner)!;
      await victim.kill();
      const api = client((victim === a ? b : a).url);
      // The lease is 10 s: move the survivor's clock past it instead of waiting.
      await api.post("/api/tick", { advance_ms: 11_000 });
      await settleAll(api, [holder, ...rest, ...other]);
      const [{ n }] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM flow_slots`;
      expect(n, "no slot is left behind once the pass has run").toBeLessThanOrEqual(1);
    } finally {
      await sql.end({ timeout: 5 });
    }
    expect(overlaps, "two calls of one key never overlapped").toBe(0);
    expect(
      order.filter((who) => who.startsWith("slots_pg")).slice(0, 2),
      "the reclaimed holder called again before any waiter of its key",
    ).toEqual(["slots_pg-0", "slots_pg-0"]);
    expect(calls.get("pg-k"), "the dead holder's call ran again, then each waiter's once").toBe(4);
  }, 120_000);
});

describe.skipIf(onPostgres)("a killed slot holder on PGlite: the restarted process", () => {
  let dir: string;
  let server: TestServer | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "baton-flow-"));
  });
  afterAll(async () => {
    await server?.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  it("finds the slot still held by the instance it reclaims, and grants the waiter only after it", async () => {
    gate = createGate();
    holdFirst.add("lite-k");
    server = await startServer({ args: ["--poll", "100", "--data-dir", dir] });
    let api = client(server.url);
    await deploy(api, definition("slots_lite"));
    const [holder, waiter] = await startAll(api, "slots_lite", ["lite-k", "lite-k"]);
    await gate.whenParked(1);
    await until("the second call of the key to wait", async () => ((await waiting(api, waiter)) ? true : undefined));
    await server.kill();
    // Pump off after the restart: only the ticks below claim and grant, after the clock moved.
    server = await startServer({ args: ["--poll", "0", "--data-dir", dir] });
    api = client(server.url);
    await api.post("/api/tick");
    expect((await api.get(`/api/instances/${waiter}`)).body.status, "still waiting behind the dead holder").toBe(
      "running",
    );
    expect(calls.get("lite-k"), "no call of the waiter while the holder's lease stands").toBe(1);
    await api.post("/api/tick", { advance_ms: 11_000 });
    await settleAll(api, [holder, waiter]);
    expect(overlaps, "two calls of one key never overlapped").toBe(0);
    expect(calls.get("lite-k")).toBe(3);
  }, 120_000);
});
