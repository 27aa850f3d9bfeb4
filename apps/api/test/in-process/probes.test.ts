// The liveness and readiness probes (docs/deploy.md "Probes") on a real database: liveness never
// awaits it, readiness answers 503 with the reason when the database is gone or shutdown began.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChecker } from "../../src/definitions/checker.js";
import { debugHandlers } from "../../src/handlers/debug.js";
import type { Services } from "../../src/services.js";
import { type Harness, openHarness, quietLog } from "../support/engine-harness.js";

let h: Harness;
let services: Services;

beforeAll(async () => {
  h = await openHarness();
  services = {
    db: h.db,
    database: h.database,
    dbKind: h.database.kind,
    clock: h.clock,
    config: h.config,
    log: quietLog,
    workerId: "worker-a",
    engine: h.engine,
    // No check runs here: a checker starts no thread until its first job.
    checker: createChecker({ threads: 1, queue: 0 }),
  };
});
afterAll(async () => {
  // The last test closed the database already; closing the engines is what is left.
  await h?.close().catch(() => {});
});

const none = {} as never;

describe("the probes", () => {
  it("readiness answers 200 ready while the database answers and shutdown has not begun", async () => {
    const ready = await debugHandlers.readiness(none, { ...services, shuttingDown: () => false });
    expect(ready).toEqual({
      status: 200,
      body: { status: "ready", worker_id: "worker-a", database: h.database.kind },
    });
  });

  it("readiness answers 503 with reason stopping once shutdown began, without pinging the database", async () => {
    let pinged = 0;
    const database = { ...h.database, ping: async () => void pinged++ };
    const ready = await debugHandlers.readiness(none, { ...services, database, shuttingDown: () => true });
    expect(ready).toEqual({
      status: 503,
      body: { status: "unavailable", worker_id: "worker-a", database: h.database.kind, reason: "stopping" },
    });
    expect(pinged).toBe(0);
  });

  it("liveness answers 200 and readiness 503 reason database once the database is closed", async () => {
    await h.database.close();
    const live = await debugHandlers.liveness(none, services);
    expect(live.body).toMatchObject({ status: "ok", worker_id: "worker-a" });
    expect(live.body.uptime_ms).toBeGreaterThanOrEqual(0);
    const ready = await debugHandlers.readiness(none, services);
    expect(ready).toEqual({
      status: 503,
      body: { status: "unavailable", worker_id: "worker-a", database: h.database.kind, reason: "database" },
    });
  });
});
