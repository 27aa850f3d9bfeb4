import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Logger } from "@baton/log";

/** Counters of the claim rounds, kept by the loop (engine.ts). */
export interface ClaimStats {
  rounds: number;
  rows: number;
  claimMs: number;
}

/** Counters of the write batches, kept by the committer (committer.ts). */
export interface WriteStats {
  batches: number;
  advances: number;
  writeMs: number;
}

/**
 * One debug line a second while work flows: where an advance waits shows in these ratios.
 * Returns the function that stops the timer and the event-loop monitor.
 */
export function startStatsLine(
  log: Logger,
  claims: ClaimStats,
  writes: WriteStats,
  inFlightCount: () => number,
): () => void {
  let reported = { rounds: 0, rows: 0, claimMs: 0, batches: 0, advances: 0, writeMs: 0 };
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const statsTimer = setInterval(() => {
    const now = { ...claims, ...writes };
    if (now.rounds === reported.rounds && now.batches === reported.batches) return;
    log.debug("engine stats", {
      in_flight: inFlightCount(),
      claim_rounds: now.rounds - reported.rounds,
      claimed: now.rows - reported.rows,
      write_batches: now.batches - reported.batches,
      written: now.advances - reported.advances,
      claim_ms: Math.round(now.claimMs - reported.claimMs),
      write_ms: Math.round(now.writeMs - reported.writeMs),
      loop_delay_p50_ms: Math.round(loopDelay.percentile(50) / 1e6),
      loop_delay_max_ms: Math.round(loopDelay.max / 1e6),
    });
    reported = now;
    loopDelay.reset();
  }, 1_000);
  statsTimer.unref();
  return () => {
    clearInterval(statsTimer);
    loopDelay.disable();
  };
}
