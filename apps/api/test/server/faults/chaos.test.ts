// Chaos on PostgreSQL (docs/engine.md, "When the database goes away"): three replicas on a
// private PostgreSQL run roots with a fetch, three children and an only_once charge while
// replicas are SIGKILLed and restarted and PostgreSQL is stopped with `-m immediate` and
// started again. Starts carry an Idempotency-Key and are retried until answered; operators
// pause, resume and cancel some roots. Afterwards: every root settled as its verbs say, every
// logical start is exactly one instance, child counts are exact, no upstream Idempotency-Key
// was answered twice unless a fault hit it in flight, only_once was never re-sent, no process
// exited but those killed, and /healthz said 503 during each outage and 200 again after it.
// Bounded to about three minutes. PostgreSQL only: PGlite cannot be stopped under a server.
import { randomUUID } from "node:crypto";
import {
  client,
  json,
  type PrivatePostgres,
  startPrivatePostgres,
  startServer,
  startUpstream,
  type TestServer,
  type Upstream,
  until,
} from "@baton/testkit";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";

const ROOTS = 36;
const CHILDREN = 3;
const CHAOS_MS = 70_000;
const REPLICA_ARGS = ["--poll", "100"];

interface Hit {
  path: string;
  key: string;
  at: number;
}

/** Replica kills and database outages, as [from, to] times: a fault "in flight" for a request between them. */
const faults: Array<{ at: number; until: number; what: string }> = [];

function faultBetween(from: number, to: number): boolean {
  return faults.some((f) => f.at <= to && f.until >= from);
}

async function sleep(ms: number) {
  await new Promise((r) => setTimeout(r, ms));
}

describe.skipIf(!process.env.DATABASE_URL)("chaos: replicas killed and PostgreSQL stopped under load", () => {
  let pg: PrivatePostgres | undefined;
  let up: Upstream | undefined;
  const replicas: Array<{ server: TestServer; killed: boolean; unexpectedExit?: string }> = [];
  afterAll(async () => {
    for (const r of replicas) await r.server.stop().catch(() => {});
    await up?.close();
    await pg?.destroy();
  });

  it("loses nothing, duplicates nothing, never re-sends only_once, and no replica exits by itself", async () => {
    const hits: Hit[] = [];
    up = await startUpstream(async (req, res) => {
      const path = req.path.split("?")[0]!;
      // A little latency, so kills and outages land while requests are in flight.
      await sleep(Math.floor(Math.random() * 40));
      hits.push({ path, key: String(req.headers["idempotency-key"] ?? ""), at: Date.now() });
      json(res, 200, { ok: true });
    });
    pg = await startPrivatePostgres();
    const url = pg.url;

    const launch = async () => {
      const server = await startServer({ args: REPLICA_ARGS, database: url });
      const entry: (typeof replicas)[number] = { server, killed: false };
      server.child.once("exit", (code, signal) => {
        if (!entry.killed) entry.unexpectedExit = `exit ${code} ${signal}\n${server.stderr().slice(-4000)}`;
      });
      replicas.push(entry);
      return entry;
    };
    const live = () => replicas.filter((r) => !r.killed);
    const anyApi = () => {
      const alive = live();
      return client(alive[Math.floor(Math.random() * alive.length)]!.server.url);
    };
    for (let i = 0; i < 3; i++) await launch();

    const setup = client(live()[0]!.server.url);
    const leaf = {
      name: "chaos_leaf",
      tasks: [{ id: "work", action: { type: "fetch", method: "POST", url: `${up.url}/leaf` } }],
      output: { done: true },
    };
    const root = {
      name: "chaos_root",
      input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      tasks: [
        { id: "step", action: { type: "fetch", method: "POST", url: `${up.url}/step` } },
        { id: "kids", action: { type: "child_list", name: "chaos_leaf", over: "$: [{}, {}, {}]" } },
        {
          id: "charge",
          only_once: true,
          action: { type: "fetch", method: "POST", url: `${up.url}/charge` },
          on_error: [{ code: ["only_once.interrupted"], goto: "$after" }],
        },
        { id: "after", output: "$: error == null ? 'charged' : error.code" },
      ],
      output: { kids: "$: len(outputs.kids)" },
    };
    expect((await setup.put("/api/definitions", leaf)).status).toBe(200);
    expect((await setup.put("/api/definitions", root)).status).toBe(200);

    /** Retries a call through any live replica until it is answered other than 503 or a lost connection. */
    async function persist(
      what: string,
      call: (api: ReturnType<typeof client>) => Promise<{ status: number; body: any; text: string }>,
    ) {
      const deadline = Date.now() + 120_000;
      for (;;) {
        try {
          const res = await call(anyApi());
          if (res.status !== 503 && res.status !== 502) return res;
        } catch {
          // The replica died under the request, or is restarting: try another.
        }
        if (Date.now() > deadline) throw new Error(`${what}: no answer for two minutes`);
        await sleep(200);
      }
    }

    const started = new Map<string, string>(); // key → instance id
    const cancelled = new Set<string>();
    const cancelling = new Set<string>();
    const pausedThenResumed = new Set<string>();
    let loadDone = false;
    const load = (async () => {
      for (let n = 0; n < ROOTS; n++) {
        const key = randomUUID();
        const res = await persist("start", (api) =>
          api.post("/api/instances", { process: "chaos_root", input: { n } }, { "idempotency-key": key }),
        );
        expect(res.status, res.text).toBe(200);
        started.set(key, res.body.id);
        if (n % 6 === 1) {
          const c = await persist("cancel", (api) => api.post(`/api/instances/${res.body.id}/cancel`));
          // 200: cancelled. 202: cancelling, and a result its in-flight advance settles wins
          // (docs/engine.md "Operator verbs"). 204: nothing live, it had completed already (a
          // cancel retried across a fault can land that late).
          if (c.status === 200) cancelled.add(res.body.id);
          else if (c.status === 202) cancelling.add(res.body.id);
        } else if (n % 6 === 3) {
          const p = await persist("pause", (api) => api.post(`/api/instances/${res.body.id}/pause`));
          if (p.status < 300) {
            pausedThenResumed.add(res.body.id);
            // Resume once it is paused (a pause asked mid-advance lands at the task boundary).
            for (;;) {
              await sleep(300);
              const view = await persist("status", (api) => api.get(`/api/instances/${res.body.id}`));
              if (view.body.status === "pausing") continue;
              if (view.body.status !== "paused") break;
              const r = await persist("resume", (api) => api.post(`/api/instances/${res.body.id}/resume`));
              expect([200, 204, 409], r.text).toContain(r.status);
            }
          }
        }
        await sleep(CHAOS_MS / ROOTS / 2);
      }
      loadDone = true;
    })();

    const outages: Array<{ down: number[]; upAfterMs: number }> = [];
    const chaos = (async () => {
      const began = Date.now();
      let nextOutage = began + 15_000;
      while (Date.now() - began < CHAOS_MS) {
        await sleep(6_000 + Math.floor(Math.random() * 6_000));
        // Kill one replica (keep at least one serving) and start a replacement.
        const victims = live();
        if (victims.length > 1) {
          const victim = victims[Math.floor(Math.random() * victims.length)]!;
          victim.killed = true;
          const at = Date.now();
          await victim.server.kill();
          faults.push({ at, until: Date.now() + 11_000, what: "kill" });
          await launch();
        }
        if (Date.now() >= nextOutage && outages.length < 2) {
          const at = Date.now();
          await pg!.stop("immediate");
          await sleep(1_200);
          const down = await Promise.all(
            live().map(
              async (r) =>
                (
                  await client(r.server.url)
                    .get("/healthz")
                    .catch(() => ({ status: 0 }))
                ).status,
            ),
          );
          await sleep(2_000);
          await pg!.start();
          const back = Date.now();
          // Every live replica answers 200 again. The deadline is a hang guard (testkit's
          // `until`), not a speed check: how soon follows from the reconnect backoff
          // (docs/engine.md "When the database goes away"), and under CI's load a replica may
          // wait seconds for a core.
          for (const r of live()) {
            let last = 0;
            await until(`a replica's /healthz to answer 200 after PostgreSQL came back`, async () => {
              last = (
                await client(r.server.url)
                  .get("/healthz")
                  .catch(() => ({ status: 0 }))
              ).status;
              return last === 200 ? true : undefined;
            }).catch((error: Error) => {
              throw new Error(`${error.message} (last ${last}):\n${r.server.stderr().slice(-3000)}`);
            });
          }
          outages.push({ down, upAfterMs: Date.now() - back });
          faults.push({ at, until: Date.now() + 11_000, what: "outage" });
          nextOutage = Date.now() + 20_000;
        }
      }
    })();

    await Promise.all([load, chaos]);
    expect(loadDone).toBe(true);
    expect(outages.length, "PostgreSQL was stopped and started twice").toBe(2);
    expect(faults.filter((f) => f.what === "kill").length, "replicas were killed").toBeGreaterThanOrEqual(3);
    for (const o of outages)
      expect(
        o.down.every((s) => s === 503),
        `healthz during the outage: ${o.down}`,
      ).toBe(true);

    // Settle: every root reaches its end.
    const api = client(live()[0]!.server.url);
    const ids = [...started.values()];
    const deadline = Date.now() + 90_000;
    let views: Array<{ id: string; status: string; output?: { kids: number }; state?: any }> = [];
    for (;;) {
      views = await Promise.all(ids.map(async (id) => (await api.get(`/api/instances/${id}/detail`)).body));
      if (views.every((v) => ["completed", "cancelled", "failed", "raised"].includes(v.status))) break;
      if (Date.now() > deadline) {
        const stuck = views.filter((v) => !["completed", "cancelled"].includes(v.status));
        throw new Error(`roots not settled: ${JSON.stringify(stuck.slice(0, 3))}`);
      }
      await sleep(500);
    }

    // Every root settled as the verbs applied to it say.
    for (const v of views) {
      if (cancelled.has(v.id)) expect(v.status, `${v.id}: its cancel answered 200`).toBe("cancelled");
      else if (cancelling.has(v.id)) expect(["cancelled", "completed"], v.id).toContain(v.status);
      else expect(v.status, `${v.id}: ${JSON.stringify(v)}`).toBe("completed");
    }
    // Every logical start is exactly one instance.
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const [roots] = await sql<{ n: number }[]>`select count(*)::int as n from instances where process = 'chaos_root'`;
      expect(roots!.n, "retried starts never started a second instance").toBe(ROOTS);
      expect(new Set(ids).size).toBe(ROOTS);
      // Exact children: a completed root has exactly CHILDREN children, each completed once.
      const kids = await sql<{ root_id: string; n: number; done: number }[]>`
        select root_id, count(*)::int as n, count(*) filter (where status = 'completed')::int as done
        from instances where parent_id is not null group by root_id`;
      const byRoot = new Map(kids.map((k) => [k.root_id, k]));
      for (const v of views.filter((x) => x.status === "completed")) {
        expect(byRoot.get(v.id)?.n, `children of ${v.id}`).toBe(CHILDREN);
        expect(byRoot.get(v.id)?.done).toBe(CHILDREN);
        expect(v.output?.kids).toBe(CHILDREN);
      }
      for (const v of views.filter((x) => x.status === "cancelled"))
        expect(byRoot.get(v.id)?.n ?? 0).toBeLessThanOrEqual(CHILDREN);
    } finally {
      await sql.end({ timeout: 1 });
    }

    // only_once never re-sent: at most one charge per instance, whatever happened.
    const charges = new Map<string, number>();
    for (const h of hits.filter((x) => x.path === "/charge")) {
      const instance = h.key.split(":")[0]!;
      charges.set(instance, (charges.get(instance) ?? 0) + 1);
    }
    for (const [instance, n] of charges) expect(n, `charges of ${instance}`).toBe(1);

    // No Idempotency-Key answered twice unless a fault hit its first request in flight.
    const byKey = new Map<string, Hit[]>();
    for (const h of hits) byKey.set(`${h.path} ${h.key}`, [...(byKey.get(`${h.path} ${h.key}`) ?? []), h]);
    for (const [key, list] of byKey) {
      for (let i = 1; i < list.length; i++)
        expect(faultBetween(list[i - 1]!.at - 11_000, list[i]!.at), `${key} answered twice with no fault between`).toBe(
          true,
        );
    }

    // No process exited except those the test killed.
    for (const r of replicas) expect(r.unexpectedExit, "a replica exited by itself").toBeUndefined();
    for (const r of live()) expect(r.server.child.exitCode).toBeNull();
  }, 300_000);
});
