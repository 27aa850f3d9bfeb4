// external_claims keeps one row per claim token ever handed out; the engine prunes the rows of
// claims that are over once they are older than CLAIM_TOKEN_RETENTION_MS, and never the current
// claim of a waiting visit (a worker may hold and renew one for days).
import { eq, sql } from "drizzle-orm";
import { refusal } from "../support/refusal.js";
import { afterEach, describe, expect, it } from "vitest";
import { askUntilTwo } from "../support/definitions.js";
import { CLAIM_TOKEN_RETENTION_MS, pruneExternalClaims } from "../../src/engine/housekeeping/claim-retention.js";
import { claimExternalTasks, tokenHash } from "../../src/engine/external/claims.js";
import { resolveExternalTask } from "../../src/engine/external/outcomes.js";
import { rowsOf } from "../../src/storage/db.js";
import { externalClaims } from "../../src/storage/schema/index.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const looped = askUntilTwo("looped");

const LEASE_MS = 60_000;

async function claimOne(harness: Harness): Promise<string> {
  const [item] = await claimExternalTasks(harness.db, harness.clock, { workerId: "w1", limit: 1, claimMs: LEASE_MS });
  expect(item, "the parked task is claimable").toBeDefined();
  return item!.token;
}

async function storedHashes(harness: Harness): Promise<string[]> {
  const rows = await harness.db.select({ hash: externalClaims.tokenHash }).from(externalClaims);
  return rows.map((r) => r.hash).sort();
}

/** Three tokens: `over` (its visit moved on), `superseded` (its claim lapsed and was re-taken), `current`. */
async function threeClaims(harness: Harness) {
  const id = await harness.deployAndStart(looped);
  expect(await harness.tick()).toBe(1);
  const over = await claimOne(harness);
  await resolveExternalTask(harness.db, harness.clock, over, { result: { n: 1 } }, "w1");
  expect(await harness.tick(), "the resolve makes the instance due; it loops back to ask").toBe(1);
  expect(await harness.tick(), "ask is entered again and parks").toBe(1);
  const superseded = await claimOne(harness);
  harness.clock.advance(LEASE_MS + 1);
  const current = await claimOne(harness);
  return { id, over, superseded, current };
}

describe("external claim token retention", () => {
  it("keeps every token within the retention window, so a late answer is told its visit is over", async () => {
    h = await openHarness();
    const { over, superseded, current } = await threeClaims(h);
    await h.tick(CLAIM_TOKEN_RETENTION_MS - LEASE_MS - 10_000);
    expect(await storedHashes(h)).toEqual([over, superseded, current].map(tokenHash).sort());
    const late = await refusal(resolveExternalTask(h.db, h.clock, over, { result: { n: 5 } }, "w1"));
    expect(late.kind, late.message).toBe("conflict");
    expect(late.message).toContain("late answer");
  });

  it("prunes the tokens of claims that are over once they are older than the window, and never the current claim", async () => {
    h = await openHarness();
    const { id, over, superseded, current } = await threeClaims(h);
    await h.tick(CLAIM_TOKEN_RETENTION_MS + 1);
    expect(await storedHashes(h), "only the waiting visit's current claim is left").toEqual([tokenHash(current)]);
    const gone = await refusal(resolveExternalTask(h.db, h.clock, over, { result: { n: 5 } }, "w1"));
    expect(gone.kind, "a pruned token is unknown").toBe("not_found");
    expect((await refusal(resolveExternalTask(h.db, h.clock, superseded, { result: { n: 5 } }, "w1"))).kind).toBe(
      "not_found",
    );

    // The old current claim lapsed long ago; the task is claimed anew and the instance finishes.
    const fresh = await claimOne(h);
    await resolveExternalTask(h.db, h.clock, fresh, { result: { n: 2 } }, "w1");
    await h.tick();
    expect((await h.get(id)).status, "pruning never touched the instance").toBe("completed");
  });

  it("lets two replicas prune at once without deleting a row twice or failing", async () => {
    h = await openHarness();
    const { current } = await threeClaims(h);
    const now = h.clock.now() + CLAIM_TOKEN_RETENTION_MS + 1;
    const [a, b] = await Promise.all([pruneExternalClaims(h.db, now), pruneExternalClaims(h.db, now)]);
    expect(a + b, "the two superseded tokens, each deleted once").toBe(2);
    expect(await storedHashes(h)).toEqual([tokenHash(current)]);
  });

  it("prunes at most a batch per pass, oldest first", async () => {
    h = await openHarness();
    await threeClaims(h);
    const [{ instance_id, task_epoch }] = rowsOf<{ instance_id: string; task_epoch: number }>(
      await h.db.execute(sql`SELECT instance_id, task_epoch FROM external_claims LIMIT 1`),
    );
    // 1,200 finished claims of an older visit (epoch 0 never matches a waiting visit).
    await h.db.execute(sql`
      INSERT INTO external_claims (token_hash, instance_id, task_epoch, claim_epoch, worker_id, created_at)
      SELECT 'old' || g, ${instance_id}, 0, g, 'w0', 1000 + g FROM generate_series(1, 1200) AS g`);
    expect(task_epoch).toBeGreaterThan(0);
    const now = h.clock.now() + CLAIM_TOKEN_RETENTION_MS + 1;
    expect(await pruneExternalClaims(h.db, now)).toBe(1_000);
    const left = await h.db
      .select({ hash: externalClaims.tokenHash })
      .from(externalClaims)
      .where(eq(externalClaims.workerId, "w0"));
    expect(left.map((r) => r.hash).sort(), "the 200 youngest are left for the next pass").toEqual(
      Array.from({ length: 200 }, (_, i) => `old${1001 + i}`).sort(),
    );
    expect(await pruneExternalClaims(h.db, now)).toBe(202);
  });
});
