import type { Logger } from "@baton/log";
import type { Clock } from "../../clock.js";
import type { Db } from "../../storage/db.js";
import { type PendingWrite, type WriteOutcome, writeAdvances } from "./commit.js";
import { errorText } from "../../loggable-error.js";

export const MAX_WRITE_BATCH = 500;
const LINGER_BELOW = 32;
const LINGER_MS = 3;
/** Another writer starts only for a backlog this big: small loads stay one commit per round. */
const PARALLEL_FROM = 64;

export interface CommitterOptions {
  /**
   * Write transactions that may run at once. More than one only pays on PostgreSQL, where a
   * batch's round trips wait on the event loop of a busy process; PGlite runs one at a time.
   */
  writers: number;
  /** Told of every batch written: its size and seconds (the metrics hook). */
  onBatch?: (size: number, seconds: number) => void;
  /**
   * Whether advances are running that have not been submitted yet: only then can lingering
   * gather a bigger batch. With nothing else running (one instance on an idle server) a linger
   * would only add its milliseconds to every step.
   */
  othersRunning?: () => boolean;
}

type Queued = { write: PendingWrite; resolve: (o: WriteOutcome) => void; reject: (e: unknown) => void };

/**
 * Group commit: advances that finish while a write is in flight (or in the same turn of the
 * event loop) are written together in one transaction, each still fenced by its own
 * lease_epoch. One commit per batch instead of one per instance is what lets the engine go
 * past the database's single-row commit rate. Concurrent batches never share a row: an
 * instance has at most one advance (so one pending write) in this process at a time, and rows
 * of another process's batches are fenced out by lease_epoch.
 */
export function createCommitter(
  db: Db,
  clock: Clock,
  thresholdBytes: number,
  log: Logger,
  options: CommitterOptions = { writers: 1 },
) {
  let queue: Queued[] = [];
  let writers = 0;
  const running = new Set<Promise<void>>();
  /** Counters for the engine's stats line: write transactions, the advances they carried, time spent. */
  const stats = { batches: 0, advances: 0, writeMs: 0 };

  const writeOne = async (item: Queued) => {
    try {
      const [outcome] = await writeAdvances(db, clock, thresholdBytes, [item.write]);
      item.resolve(outcome);
    } catch (error) {
      item.reject(error);
    }
  };

  const writeBatch = async (batch: Queued[]) => {
    stats.batches++;
    stats.advances += batch.length;
    const began = performance.now();
    try {
      const outcomes = await writeAdvances(
        db,
        clock,
        thresholdBytes,
        batch.map((b) => b.write),
      );
      stats.writeMs += performance.now() - began;
      options.onBatch?.(batch.length, (performance.now() - began) / 1000);
      for (let i = 0; i < batch.length; i++) batch[i].resolve(outcomes[i]);
    } catch (error) {
      if (batch.length === 1) {
        batch[0].reject(error);
        return;
      }
      // One bad row must not sink the others: write them one by one.
      log.warn("batched advance write failed; writing one by one", {
        error: errorText(error),
        size: batch.length,
      });
      for (const item of batch) await writeOne(item);
    }
  };

  const drain = async (first: boolean) => {
    if (first) {
      // Let every advance that finishes in this turn join the batch; when the batch is still small,
      // linger a moment: a few ms of latency buy far fewer (and cheaper) transactions under load.
      await new Promise((resolve) => setImmediate(resolve));
      if (queue.length < LINGER_BELOW && (options.othersRunning?.() ?? true))
        await new Promise((resolve) => setTimeout(resolve, LINGER_MS));
    }
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_WRITE_BATCH);
      queue = queue.slice(batch.length);
      await writeBatch(batch);
    }
  };

  const startWriter = (first: boolean) => {
    writers++;
    const done: Promise<void> = drain(first)
      .catch((error) => log.error("advance writer failed", { error: errorText(error) }))
      .finally(() => {
        writers--;
        running.delete(done);
        if (queue.length > 0 && writers === 0) startWriter(true);
      });
    running.add(done);
  };

  return {
    stats,
    submit(write: PendingWrite): Promise<WriteOutcome> {
      return new Promise((resolve, reject) => {
        queue.push({ write, resolve, reject });
        if (writers === 0) startWriter(true);
        else if (writers < options.writers && queue.length >= PARALLEL_FROM) startWriter(false);
      });
    },
    /** Resolves once everything submitted so far is written. */
    async idle(): Promise<void> {
      while (running.size > 0) await Promise.all(running);
    },
  };
}

export type Committer = ReturnType<typeof createCommitter>;
