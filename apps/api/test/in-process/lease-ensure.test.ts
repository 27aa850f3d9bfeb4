// docs/engine.md, "A lease is never acted on late": before an action, a lease with less than
// LEASE_MARGIN_MS left in the holder's view is renewed (fenced by owner and lease_epoch), and
// the advance is dropped only when the renewal cannot keep it.
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { leaseDue } from "../../src/engine/leases.js";
import type { InFlight } from "../../src/engine/pump/in-flight.js";
import { ensureLease, LeaseTooShort } from "../../src/engine/pump/lease-renewal.js";
import { LEASE_MARGIN_MS, LEASE_MS } from "../../src/engine/statuses.js";
import { rowsOf } from "../../src/storage/db.js";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function leased(harness: Harness, workerId: string) {
  const id = await harness.deployAndStart({ name: "one", tasks: [{ id: "only", output: 1 }] });
  const [row] = await leaseDue(harness.db, workerId, harness.clock.now(), 1);
  expect(row.id).toBe(id);
  const entry: InFlight = {
    leaseEpoch: row.leaseEpoch,
    // Claimed long ago in this holder's view: less than the margin left.
    leaseUntil: harness.clock.now() + LEASE_MARGIN_MS - 1_000,
    abort: new AbortController(),
    writing: false,
    done: Promise.resolve(),
  };
  return { id, entry };
}

const leaseOf = async (harness: Harness, id: string) =>
  rowsOf<{ owner: string | null; expires: string | number | null; epoch: number }>(
    await harness.db.execute(
      sql`SELECT lease_owner AS owner, lease_expires_at AS expires, lease_epoch AS epoch FROM instances WHERE id = ${id}`,
    ),
  )[0];

describe("a lease too short to act on", () => {
  it("is renewed in the row and in the holder's view when nobody took it, and the action goes ahead", async () => {
    h = await openHarness({ pollMs: 0 });
    const { id, entry } = await leased(h, "worker-a");
    const before = h.clock.now();
    await ensureLease(h.db, h.clock, "worker-a", id, entry);
    expect(entry.leaseUntil).toBeGreaterThanOrEqual(before + LEASE_MS);
    const row = await leaseOf(h, id);
    expect(row.owner).toBe("worker-a");
    expect(Number(row.expires)).toBeGreaterThanOrEqual(before + LEASE_MS);
    expect(row.epoch).toBe(entry.leaseEpoch);
  });

  it("drops the action (LeaseTooShort) when another worker reclaimed the row, leaving that worker's lease alone", async () => {
    h = await openHarness({ pollMs: 0 });
    const { id, entry } = await leased(h, "worker-a");
    // The lease runs out in the row and worker-b reclaims it: the epoch moves on.
    await h.db.execute(
      sql`UPDATE instances SET lease_expires_at = ${h.clock.now() - 1}, wake_at = ${h.clock.now() - 1} WHERE id = ${id}`,
    );
    const [reclaimed] = await leaseDue(h.db, "worker-b", h.clock.now(), 1);
    expect(reclaimed.id).toBe(id);
    const taken = await leaseOf(h, id);
    await expect(ensureLease(h.db, h.clock, "worker-a", id, entry)).rejects.toBeInstanceOf(LeaseTooShort);
    expect(await leaseOf(h, id)).toEqual(taken);
    expect(taken.owner).toBe("worker-b");
  });

  it("does nothing when the margin is left", async () => {
    h = await openHarness({ pollMs: 0 });
    const { id, entry } = await leased(h, "worker-a");
    entry.leaseUntil = h.clock.now() + LEASE_MS;
    const row = await leaseOf(h, id);
    await ensureLease(h.db, h.clock, "worker-a", id, entry);
    expect(await leaseOf(h, id)).toEqual(row);
  });
});
