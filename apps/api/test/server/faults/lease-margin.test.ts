// A lease is never acted on late (docs/engine.md, "A lease is never acted on late"). Replica A's
// write that keeps its lease to chain the next task stalls past the lease (a row lock holds it),
// and A is frozen (SIGSTOP) as the write lands. Replica B finds the lease expired, reclaims the
// instance, and runs the payment pattern: the only_once charge is interrupted, the verify step
// finds no charge, the charge runs once. When A thaws, it must not send the charge it chained
// into: its lease, computed from a timestamp taken before the write was sent, is over.
// PostgreSQL only (two processes share one database).
import {
  client,
  createGate,
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
import { deployAndStart } from "../../support/instances-fixtures.js";

let up: Upstream;
/** Holds `/prep` until the test has the instance row locked, so the write after it stalls. */
const prepGate = createGate();
const charges: string[] = [];

beforeAll(async () => {
  up = await startUpstream((req, res) => {
    const path = req.path.split("?")[0];
    if (path === "/prep") return prepGate.hold(res, { ok: true });
    if (path === "/charge") {
      charges.push(String(req.headers["idempotency-key"]));
      return json(res, 200, { charged: true });
    }
    if (path === "/verify") return json(res, 200, { charged: charges.length > 0 });
    json(res, 404, {});
  });
});
afterAll(async () => {
  await up?.close();
});

function payment() {
  const verdict = { type: "object", properties: { charged: { type: "boolean" } }, required: ["charged"] };
  return {
    name: "payment",
    tasks: [
      { id: "prep", action: { type: "fetch", url: `${up.url}/prep`, timeout: { for: "5m" } } },
      {
        id: "charge",
        only_once: true,
        action: { type: "fetch", method: "POST", url: `${up.url}/charge`, result_schema: verdict },
        on_error: [{ code: ["only_once.interrupted"], goto: "$verify" }],
        switch: "end",
      },
      {
        id: "verify",
        action: { type: "fetch", url: `${up.url}/verify`, result_schema: verdict },
        switch: [{ case: "self.output.charged", goto: "end" }, { goto: "$charge" }],
      },
    ],
  };
}

describe.skipIf(!onPostgres)("a replica whose write stalled past its lease", () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) {
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGCONT");
      await s.stop().catch(() => {});
    }
  });

  it("does not send the charge it chained into once thawed; the charge is sent exactly once", async () => {
    const a = await startServer({ args: ["--poll", "100"] });
    servers.push(a);
    const apiA = client(a.url);
    const id = await deployAndStart(apiA, payment());
    await prepGate.whenParked();

    const sql = postgres(a.database, { max: 2, onnotice: () => {} });
    try {
      const locker = await sql.reserve();
      await locker`begin`;
      await locker`select id from instances where id = ${id} for update`;
      prepGate.releaseOne();
      await until("A's write to wait on the row lock", async () => {
        const [row] = await locker<{ n: number }[]>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`;
        return row!.n > 0 ? true : undefined;
      });
      // Past A's lease (10 s from when its write was sent), then freeze A and let the write land.
      await new Promise((r) => setTimeout(r, 11_000));
      a.child.kill("SIGSTOP");
      await locker`commit`;
      locker.release();

      const b = await startServer({ args: ["--poll", "100"], database: a.database });
      servers.push(b);
      const apiB = client(b.url);
      const done = await until("B to settle the instance", async () => {
        const d = (await apiB.get(`/api/instances/${id}/detail`)).body;
        return d.status === "completed" ? d : undefined;
      });
      expect(done.status).toBe("completed");
      expect(charges, "B charged once, after verify found no charge").toHaveLength(1);

      a.child.kill("SIGCONT");
      // A either drops its chained advance (logged) or, wrongly, sends a second charge.
      await until("A to act on its kept lease", async () =>
        /advance dropped: too little of the lease left/.test(a.stderr()) || charges.length > 1 ? true : undefined,
      );
      expect(charges, "the charge was sent exactly once").toHaveLength(1);
      expect(a.child.exitCode, a.stderr()).toBeNull();
    } finally {
      await sql.end({ timeout: 1 });
    }
  }, 120_000);
});
