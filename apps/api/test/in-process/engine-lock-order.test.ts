// Statements that lock many instance rows at once must lock them in one order (trees/lock.ts
// lockInIdOrder): a lease renewal and advance batches over the same rows, listed in different
// orders, otherwise deadlock and PostgreSQL aborts one of them. PostgreSQL only: PGlite has one
// connection, so nothing there runs concurrently.
import { onPostgres } from "@baton/testkit";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdvanceResult } from "../../src/engine/advance/advance-types.js";
import { type LeasedRow, renewLeases } from "../../src/engine/leases.js";
import { type PendingWrite, writeAdvances } from "../../src/engine/pump/commit.js";
import { rowsOf } from "../../src/storage/db.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

const ROWS = 120;
const ROUNDS = 15;

let h: Harness;
const ids: string[] = [];

beforeAll(async () => {
  if (!onPostgres) return;
  h = await openHarness();
  await h.deploy({ name: "p", tasks: [{ id: "a", output: "1" }] });
  for (let i = 0; i < ROWS; i++) ids.push(await h.start("p"));
});
afterAll(async () => {
  await h?.close();
});

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function pendingWrite(id: string, leaseEpoch: number, now: number): PendingWrite {
  const claim: LeasedRow = {
    id,
    rootId: id,
    process: "p",
    version: 1,
    task: "a",
    stateText: "{}",
    retryCount: 0,
    taskEpoch: 1,
    leaseEpoch,
    reclaimedFrom: null,
    attempts: 1,
    parentId: null,
    parentTaskEpoch: 0,
    traceParent: null,
  };
  const state = { input: {}, outputs: {}, _children: {} };
  const result: AdvanceResult = {
    status: "running",
    task: "a",
    taskEpoch: 1,
    retryCount: 0,
    state,
    written: new Set(),
    errorCode: null,
    errorMessage: null,
    wakeAt: now + 60_000,
    logs: [{ level: "info", event: "task.completed", message: "a ran", task: "a", data: null }],
  };
  return { claim, storedState: state, result, keepLeaseFor: "w" };
}

describe.skipIf(!onPostgres)("multi-row locks", () => {
  it("lets a lease renewal and concurrent advance batches over the same rows, in any order, all finish", async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const now = h.clock.now();
      await h.db.execute(
        sql`UPDATE instances SET lease_owner = 'w', lease_epoch = ${round}, lease_expires_at = ${now + 10_000}, status = 'running'`,
      );
      const order = shuffled(ids);
      const half = Math.floor(ROWS / 2);
      const outcomes = await Promise.all([
        renewLeases(
          h.db,
          "w",
          now,
          shuffled(ids).map((id) => ({ id, leaseEpoch: round })),
        ),
        writeAdvances(
          h.db,
          h.clock,
          1 << 20,
          order.slice(0, half + 10).map((id) => pendingWrite(id, round, now)),
        ),
        writeAdvances(
          h.db,
          h.clock,
          1 << 20,
          order
            .slice(half + 10)
            .reverse()
            .map((id) => pendingWrite(id, round, now)),
        ),
      ]);
      const [, first, second] = outcomes;
      expect(
        [...first, ...second].every((o) => o.applied),
        "every fenced write whose fence held must land",
      ).toBe(true);
    }
    const counts = await h.db.execute(
      sql`SELECT count(*)::int AS n FROM logs WHERE event = 'task.completed' GROUP BY instance_id`,
    );
    const perRow = rowsOf<{ n: number }>(counts);
    expect(
      perRow.map((r) => Number(r.n)),
      "each batch wrote each row's log line exactly once",
    ).toEqual(Array(ROWS).fill(ROUNDS));
  });
});
