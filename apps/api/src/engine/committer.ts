import type { Logger } from "../logger.js";
import type { Clock } from "../storage/clock.js";
import type { Db } from "../storage/db.js";
import { type PendingWrite, type WriteOutcome, writeAdvances } from "./commit.js";

export const MAX_WRITE_BATCH = 500;
const LINGER_BELOW = 32;
const LINGER_MS = 3;

/**
 * Group commit: advances that finish while a write is in flight (or in the same turn of the
 * event loop) are written together in one transaction, each still fenced by its own
 * lease_epoch. One commit per batch instead of one per instance is what lets the engine go
 * past the database's single-row commit rate.
 */
export function createCommitter(db: Db, clock: Clock, thresholdBytes: number, log: Logger) {
  let queue: Array<{ write: PendingWrite; resolve: (o: WriteOutcome) => void; reject: (e: unknown) => void }> = [];
  let active: Promise<void> | undefined;
  /** Counters for the engine's stats line: write transactions and the advances they carried. */
  const stats = { batches: 0, advances: 0 };

  const writeOne = async (item: (typeof queue)[number]) => {
    try {
      const [outcome] = await db.transaction((tx) => writeAdvances(tx as unknown as Db, clock, thresholdBytes, [item.write]));
      item.resolve(outcome);
    } catch (error) {
      item.reject(error);
    }
  };

  const drain = async () => {
    // Let every advance that finishes in this turn join the batch; when the batch is still small,
    // linger a moment: a few ms of latency buy far fewer (and cheaper) transactions under load.
    await new Promise((resolve) => setImmediate(resolve));
    if (queue.length < LINGER_BELOW) await new Promise((resolve) => setTimeout(resolve, LINGER_MS));
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_WRITE_BATCH);
      queue = queue.slice(batch.length);
      stats.batches++;
      stats.advances += batch.length;
      try {
        const outcomes = await db.transaction((tx) =>
          writeAdvances(
            tx as unknown as Db,
            clock,
            thresholdBytes,
            batch.map((b) => b.write),
          ),
        );
        for (let i = 0; i < batch.length; i++) batch[i].resolve(outcomes[i]);
      } catch (error) {
        if (batch.length === 1) {
          batch[0].reject(error);
          continue;
        }
        // One bad row must not sink the others: write them one by one.
        log.warn("batched advance write failed; writing one by one", { error: (error as Error).message, size: batch.length });
        for (const item of batch) await writeOne(item);
      }
    }
  };

  const run = () => {
    active = drain()
      .catch((error) => log.error("advance writer failed", { error: (error as Error).message }))
      .finally(() => {
        active = undefined;
        if (queue.length > 0) run();
      });
  };

  return {
    stats,
    submit(write: PendingWrite): Promise<WriteOutcome> {
      return new Promise((resolve, reject) => {
        queue.push({ write, resolve, reject });
        if (active === undefined) run();
      });
    },
    /** Resolves once everything submitted so far is written. */
    async idle(): Promise<void> {
      while (active !== undefined) await active;
    },
  };
}

export type Committer = ReturnType<typeof createCommitter>;
