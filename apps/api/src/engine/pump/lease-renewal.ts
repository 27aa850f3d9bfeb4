import type { Logger } from "@baton/log";
import type { Clock } from "../../clock.js";
import type { Db } from "../../storage/db.js";
import { AdvanceAbandoned } from "../advance/abandoned.js";
import { LEASE_MARGIN_MS, LEASE_MS } from "../statuses.js";
import { renewLeases } from "../leases.js";
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

/** Raised before an action when the lease is about to expire and could not be renewed in time: the advance is dropped, nothing sent. */
export class LeaseTooShort extends AdvanceAbandoned {
  constructor(
    readonly instanceId: string,
    readonly leftMs: number,
  ) {
    super(`the lease of instance ${instanceId} has ${leftMs} ms left, less than the ${LEASE_MARGIN_MS} ms margin`);
  }
}

/**
 * Before an action: the lease must have LEASE_MARGIN_MS left in this holder's view. With less
 * (a write, a claim or the event loop ran late) it is renewed first — the renewal is fenced by
 * owner and lease_epoch, so it keeps only a lease nobody took (a reclaim moves the epoch) —
 * and LeaseTooShort is thrown only when the renewal did not keep the row or came back too late
 * itself. Dropping instead cost an overloaded server every such advance: the row waited out its
 * lease and came back as a reclaim, one claim attempt more (docs/engine.md).
 */
export async function ensureLease(
  db: Db,
  clock: Clock,
  workerId: string,
  instanceId: string,
  entry: InFlight,
): Promise<void> {
  if (entry.leaseUntil - clock.now() >= LEASE_MARGIN_MS) return;
  const sentAt = clock.now();
  const lost = await renewLeases(db, workerId, sentAt, [{ id: instanceId, leaseEpoch: entry.leaseEpoch }]);
  if (lost.length === 0) entry.leaseUntil = Math.max(entry.leaseUntil, sentAt + LEASE_MS);
  const leftMs = entry.leaseUntil - clock.now();
  if (leftMs < LEASE_MARGIN_MS) throw new LeaseTooShort(instanceId, leftMs);
}
