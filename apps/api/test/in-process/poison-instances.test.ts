// docs/limits.md#poison-instances: an instance that is claimed again and again without a write
// landing fails with engine.crashed, and text the database cannot hold (U+0000) never wedges
// an instance. Runs on PGlite, and on PostgreSQL when DATABASE_URL is set.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../src/limits.js";
import { leaseDue } from "../../src/engine/leases.js";
import { retryTree } from "../../src/engine/index.js";
import { LEASE_MS } from "../../src/engine/statuses.js";
import { rowsOf } from "../../src/storage/db.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness;
beforeAll(async () => {
  h = await openHarness({ limits: { ...DEFAULT_LIMITS, advanceAttempts: 3 } });
  await h.deploy({ name: "nap", tasks: [{ id: "sleep", action: { type: "delay", for: "1s" } }] });
  await h.deploy({
    name: "bad_raise",
    tasks: [{ id: "stop", switch: [{ raise: { code: "bad", message: "nul \u0000 here" } }] }],
  });
});
afterAll(async () => h?.close());

describe("an instance claimed repeatedly without a write", () => {
  it("fails with engine.crashed after --limit-advance-attempts claims, and a retry gets a fresh budget", async () => {
    const id = await h.start("nap");
    // Three workers claim it and die before writing: each lease expires unanswered.
    for (let i = 0; i < 3; i++) {
      const claimed = await leaseDue(h.db, `dead-${i}`, h.clock.now(), 100);
      expect(claimed.map((c) => c.id)).toContain(id);
      h.clock.advance(LEASE_MS + 1);
    }
    await h.tick();
    const failed = await h.get(id);
    expect(failed.status).toBe("failed");
    expect(failed.errorCode).toBe("engine.crashed");
    expect(failed.errorMessage).toContain("claimed 4 times since its last write");
    expect(failed.errorMessage).toContain("--limit-advance-attempts");
    expect(failed.task, "it fails where it stood").toBe("sleep");

    await retryTree(h.db, h.clock, id, "token:op", false);
    const done = await h.runToEnd(id, 1000, 20);
    expect(done.status).toBe("completed");
  });

  it("counts only claims since the last landed write", async () => {
    const id = await h.start("nap");
    for (let i = 0; i < 2; i++) {
      await leaseDue(h.db, `dead-${i}`, h.clock.now(), 100);
      h.clock.advance(LEASE_MS + 1);
    }
    // The third claim runs the delay's first advance and writes: the count starts again.
    await h.tick();
    const [row] = rowsOf<{ attempts: number }>(
      await h.db.execute(sql`SELECT attempts FROM instances WHERE id = ${id}`),
    );
    expect(Number(row.attempts)).toBe(0);
    expect((await h.runToEnd(id, 1000, 20)).status).toBe("completed");
  });
});

describe("text the database cannot hold", () => {
  it("stores an authored raise message with a NUL byte (replaced by U+FFFD) instead of retrying forever", async () => {
    const id = await h.start("bad_raise");
    const end = await h.runToEnd(id, 1000, 10);
    expect(end.status).toBe("raised");
    expect(end.errorCode).toBe("bad");
    expect(end.errorMessage).toContain("nul \uFFFD here");
  });

  it("keeps a NUL in instance data as data (JSON text escapes it)", async () => {
    const id = await h.start("nap", { note: "a\u0000b" });
    const end = await h.runToEnd(id, 1000, 10);
    expect(end.status).toBe("completed");
    expect(end.state.input.note).toBe("a\u0000b");
  });
});
