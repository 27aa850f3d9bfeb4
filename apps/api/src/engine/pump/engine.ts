import type { Logger } from "@baton/log";
import type { ServerConfig } from "../../config.js";
import { type EngineMetrics, NO_ENGINE_METRICS } from "../../metrics/metrics.js";
import type { Clock } from "../../clock.js";
import type { Db } from "../../storage/db.js";
import type { Carried } from "../carry.js";
import { errorText } from "../../loggable-error.js";
import { asInstanceState, type InstanceState } from "../advance/instance-state.js";
import { LEASE_MS, LEASE_RENEW_MS } from "../statuses.js";
import { createAdvanceBasis } from "./advance-basis.js";
import { createChores } from "./chores.js";
import { createFlowChore } from "../flow/chore.js";
import { type LeasedRow, leaseDue, expireLeases, releaseKeptLease } from "../leases.js";
import { createScheduleChore } from "../schedules/chore.js";
import { createDeliveryChore } from "../events/chore.js";
import { fetchPolicyOf } from "../fetch/host-policy.js";
import type { WriteOutcome } from "./commit.js";
import { createCommitter } from "./committer.js";
import { createFailureLog } from "./failure-log.js";
import { createInMemoryAdvance } from "./in-memory.js";
import type { InFlight } from "./in-flight.js";
import { renewInFlight } from "./lease-renewal.js";
import { createAdvanceRunner } from "./run-advance.js";
import { type ClaimStats, startStatsLine } from "./stats.js";

// The loop: claim rounds, lease chaining, wakes, carried advances and the stop sequence. They
// share one in-flight map and one stopping flag, so they stay in this one function; what one
// advance does is run-advance.ts, renewal lease-renewal.ts, the chores chores.ts.

export interface EngineDeps {
  db: Db;
  clock: Clock;
  config: ServerConfig;
  log: Logger;
  workerId: string;
  /** Source of `config.<NAME>` values (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Advance write transactions that may run at once (committer.ts); default 1. */
  writers?: number;
  /** Where the pump reports claims, advances, commits and fetch calls (docs/metrics.md). */
  metrics?: EngineMetrics;
  /**
   * Tests only (the server never sets it): awaited after an advance is computed and before its
   * write is submitted, so a test can land a concurrent change (a resolve, a verb) in exactly
   * that window instead of racing for it.
   */
  beforeWrite?: (instanceId: string) => Promise<void>;
}

const STOP_GRACE_MS = 5_000;
/** Advances one instance may run back to back under one lease before it queues again. */
const MAX_CHAIN = 16;
/** A wake waits this long so that slots freed by one commit are claimed together. */
const WAKE_DELAY_MS = 2;

/** Starts the pump; the handle it answers is engine/index.ts's EngineHandle. */
export function startPump(deps: EngineDeps) {
  const { db, clock, config, log, workerId } = deps;
  const env = deps.env ?? process.env;
  const metrics = deps.metrics ?? NO_ENGINE_METRICS;
  const committer = createCommitter(db, clock, config.objectThresholdBytes, log, {
    writers: deps.writers ?? 1,
    onBatch: metrics.committed,
    othersRunning: () => {
      for (const entry of inFlight.values()) if (!entry.writing) return true;
      return false;
    },
  });
  const basis = createAdvanceBasis({ db, clock, config, workerId, env });
  const advanceInMemory = createInMemoryAdvance(basis, config.objectThresholdBytes, metrics);
  const run = createAdvanceRunner({
    ...{ db, clock, config, log, workerId, basis, metrics, committer },
    wake: () => wake(),
    beforeWrite: deps.beforeWrite,
    flowPass: () => flow.request(),
  });
  const inFlight = new Map<string, InFlight>();
  let reserved = 0;
  let lastLeaseAt = 0;
  let stopped = false;
  let pollTimer: NodeJS.Timeout | undefined;
  let wakeScheduled = false;
  let pumpRound: Promise<void> | undefined;
  let pumpAgain = false;

  const logFailure = createFailureLog(log);
  const schedules = createScheduleChore({ db, clock, config, metrics, logFailure, wake: () => wake() });
  const flow = createFlowChore({ db, clock, config, metrics, logFailure, wake: () => wake() });
  const deliveries = createDeliveryChore({
    ...{ db, clock, config, workerId, metrics, env, logFailure },
    policy: fetchPolicyOf(config),
  });
  const chores = [...createChores(db, clock, log, logFailure), schedules.run, deliveries.run, flow.run];

  const renewTimer = setInterval(
    () =>
      void renewInFlight(db, clock, workerId, inFlight, log, logFailure).then((renewedAt) => {
        if (renewedAt !== undefined) lastLeaseAt = renewedAt;
      }),
    LEASE_RENEW_MS,
  );
  renewTimer.unref();

  const claims: ClaimStats = { rounds: 0, rows: 0, claimMs: 0 };
  const stopStats = startStatsLine(log, claims, committer.stats, () => inFlight.size);

  /** Claims up to the free slots and starts their advances; each promise says whether the write landed. */
  async function claimRound(limit = Number.POSITIVE_INFINITY, fromTick = false): Promise<Array<Promise<WriteOutcome>>> {
    for (const chore of chores) await chore(fromTick);
    const free = Math.min(limit, Math.max(0, config.maxConcurrent - inFlight.size - reserved));
    if (free === 0) return [];
    reserved += free;
    let claimed: LeasedRow[];
    const began = performance.now();
    const sentAt = clock.now();
    try {
      claimed = await leaseDue(db, workerId, sentAt, free);
    } finally {
      reserved -= free;
      claims.claimMs += performance.now() - began;
    }
    claims.rounds++;
    claims.rows += claimed.length;
    metrics.claimRound(claimed.length, claimed.filter((row) => row.reclaimedFrom !== null).length);
    if (claimed.length > 0) lastLeaseAt = clock.now();
    return claimed.map((row) => start(row, !fromTick, sentAt + LEASE_MS));
  }

  function start(row: LeasedRow, chain: boolean, leaseUntil: number): Promise<WriteOutcome> {
    const abort = new AbortController();
    const entry: InFlight = { leaseEpoch: row.leaseEpoch, leaseUntil, abort, writing: false, done: Promise.resolve() };
    entry.done = runChain(row, entry, chain).finally(() => {
      if (inFlight.get(row.id) === entry) inFlight.delete(row.id);
    });
    inFlight.set(row.id, entry);
    return entry.done as Promise<WriteOutcome>;
  }

  /**
   * Runs the claimed advance and, when `chain` is set (the pump; never a /tick, which answers
   * for one cycle), the instance's next advances under the same lease for as long as each
   * write leaves it running and due now — up to MAX_CHAIN advances, so due rows waiting for a
   * slot get one.
   */
  async function runChain(row: LeasedRow, entry: InFlight, chain: boolean): Promise<WriteOutcome> {
    const abandoned = entry.abort.signal;
    let claim = row;
    let storedState: InstanceState | undefined;
    for (let advances = 1; ; advances++) {
      const keep = chain && advances < MAX_CHAIN && !stopped;
      const outcome = await run(claim, storedState, entry, keep);
      if (outcome.kept === undefined) return outcome;
      if (stopped || abandoned.aborted) {
        // Hand the row back at once rather than make another replica wait out the lease.
        await releaseKeptLease(db, workerId, clock.now(), { id: claim.id, leaseEpoch: claim.leaseEpoch }).catch(
          (error) => log.error("releasing a lease failed", { instance: claim.id, error: errorText(error) }),
        );
        return outcome;
      }
      const { task, taskEpoch, retryCount, leaseUntil } = outcome.kept;
      entry.leaseUntil = leaseUntil;
      claim = { ...claim, task, taskEpoch, retryCount, reclaimedFrom: null, attempts: 0 };
      storedState = asInstanceState(outcome.kept.storedState);
    }
  }

  function dueAgain(outcome: WriteOutcome): boolean {
    return (
      outcome.applied &&
      outcome.status === "running" &&
      outcome.wakeAt !== null &&
      outcome.wakeAt !== undefined &&
      outcome.wakeAt <= clock.now()
    );
  }

  function pump(): void {
    if (stopped) return;
    if (pumpRound !== undefined) {
      pumpAgain = true;
      return;
    }
    pumpRound = (async () => {
      try {
        // Half the slots per round: the next claim overlaps the previous round's write.
        const runs = await claimRound(Math.max(1, Math.ceil(config.maxConcurrent / 2)));
        for (const r of runs) {
          void r.then((outcome) => {
            if (dueAgain(outcome) || inFlight.size + 1 >= config.maxConcurrent) wake();
          });
        }
        if (runs.length > 0 && inFlight.size < config.maxConcurrent) pumpAgain = true;
      } catch (error) {
        logFailure("claim round", error);
      } finally {
        pumpRound = undefined;
        if (pumpAgain) {
          pumpAgain = false;
          wake();
        }
      }
    })();
  }

  function wake(): void {
    if (stopped || config.pollMs <= 0 || wakeScheduled) return;
    wakeScheduled = true;
    setTimeout(() => {
      wakeScheduled = false;
      pump();
    }, WAKE_DELAY_MS);
  }

  function schedulePoll(): void {
    if (stopped || config.pollMs <= 0) return;
    pollTimer = setTimeout(() => {
      pump();
      schedulePoll();
    }, config.pollMs);
  }
  schedulePoll();
  wake();

  async function carry<T>(instanceId: string, write: (carrier: string | null) => Promise<Carried<T>>): Promise<T> {
    const free =
      !stopped && config.pollMs > 0 && !inFlight.has(instanceId) && inFlight.size + reserved < config.maxConcurrent;
    if (!free) {
      const out = await write(null);
      wake();
      return out.value;
    }
    // The slot is held from before the statement takes the lease until the advance is in flight.
    reserved++;
    let out: Carried<T>;
    // Taken before the statement that leases the row: its own `now` is later, so the lease in
    // this holder's view never outlasts the row's (docs/engine.md, "A lease is never acted on late").
    const sentAt = clock.now();
    try {
      out = await write(workerId);
    } finally {
      reserved--;
    }
    const row = out.leased;
    if (row === undefined) wake();
    else if (stopped)
      await releaseKeptLease(db, workerId, clock.now(), row).catch((error) =>
        log.error("releasing a lease failed", { instance: row.id, error: errorText(error) }),
      );
    else {
      lastLeaseAt = clock.now();
      void start(row, true, sentAt + LEASE_MS);
    }
    return out.value;
  }

  return {
    wake,
    carry,
    advanceInMemory,
    async tick(): Promise<number> {
      const runs = await claimRound(Number.POSITIVE_INFINITY, true);
      const outcomes = await Promise.all(runs);
      return outcomes.filter((o) => o.applied).length;
    },
    leaseAgeMs: () => (inFlight.size === 0 ? 0 : Math.max(0, clock.now() - lastLeaseAt)),
    async stop(): Promise<void> {
      stopped = true;
      if (pollTimer) clearTimeout(pollTimer);
      clearInterval(renewTimer);
      stopStats();
      await pumpRound;
      await schedules.idle();
      flow.stop();
      await flow.idle();
      await deliveries.idle();
      const pending = [...inFlight.values()].map((v) => v.done);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(pending),
        new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS))),
      ]);
      clearTimeout(timer);
      const left = [...inFlight].map(([id, v]) => {
        v.abort.abort();
        return { id, leaseEpoch: v.leaseEpoch };
      });
      await committer.idle();
      if (left.length > 0) {
        await expireLeases(db, workerId, clock.now(), left).catch((error) =>
          log.error("releasing leases failed", { error: errorText(error) }),
        );
      }
    },
  };
}
