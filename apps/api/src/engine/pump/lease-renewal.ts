import type { Logger } from "@baton/log";
import type { Clock } from "../../storage/clock.js";
import type { Db } from "../../storage/db.js";
import { LEASE_MS } from "../statuses.js";
import { renewLeases } from "./claim.js";
import type { FailureLog } from "./failure-log.js";
import type { InFlight } from "./in-flight.js";

/**
 * Renews the lease of every in-flight advance that is not writing, and aborts the advances
 * whose lease another worker took. Resolves with the time of the renewal, or undefined when
 * nothing was held or the statement failed (logged).
 */
export async function renewInFlight(
  db: Db,
  clock: Clock,
  workerId: string,
  inFlight: Map<string, InFlight>,
  log: Logger,
  logFailure: FailureLog,
): Promise<number | undefined> {
  // A row whose write is queued or running is left alone: that write sets its lease (kept or
  // released), and a renewal racing it could make the holder's view outrun the row's.
  const held = [...inFlight].filter(([, v]) => !v.writing).map(([id, v]) => ({ id, leaseEpoch: v.leaseEpoch }));
  if (held.length === 0) return undefined;
  try {
    const sentAt = clock.now();
    const lost = await renewLeases(db, workerId, sentAt, held);
    const renewedAt = clock.now();
    const lostSet = new Set(lost);
    for (const h of held) {
      const entry = inFlight.get(h.id);
      if (entry && !lostSet.has(h.id) && entry.leaseEpoch === h.leaseEpoch)
        entry.leaseUntil = Math.max(entry.leaseUntil, sentAt + LEASE_MS);
    }
    for (const id of lost) {
      const entry = inFlight.get(id);
      // A row whose write is in flight may just have given its lease back (that write is
      // fenced itself): only a row that is merely running its task has really lost it.
      if (entry && !entry.writing && entry.leaseEpoch === held.find((h) => h.id === id)?.leaseEpoch) {
        log.warn("lease lost; abandoning the advance", { instance: id });
        entry.abort.abort();
      }
    }
    return renewedAt;
  } catch (error) {
    logFailure("lease renewal", error);
    return undefined;
  }
}
