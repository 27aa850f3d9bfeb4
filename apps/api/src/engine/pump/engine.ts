// Over 300 lines on purpose: the claim loop, lease renewal, lease chaining, the chores and the
// stop sequence share one in-flight map and one stopping flag; apart they would race.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { type Json, parseJson, type Scope } from "@baton/expr";
import type { ServerConfig } from "../../config.js";
import type { Logger } from "@baton/log";
import type { Carried, EngineHandle } from "../../services.js";
import type { Clock } from "../../storage/clock.js";
import { type Db, inTransaction } from "../../storage/db.js";
import { advance, type AdvanceResult } from "../advance/advance.js";
import { childEnvironment, newTreeMemo } from "./child-environment.js";
import { AdvanceAbandoned } from "../advance/abandoned.js";
import type { ChildEnvironment } from "../advance/tasks/child.js";
import { databaseErrorCode, isDatabaseUnavailable } from "../../storage/db-unavailable.js";
import {
  claimDue,
  type ClaimedRow,
  expireLeases,
  finaliseAbandoned,
  hasAbandoned,
  releaseKeptLease,
  renewLeases,
} from "./claim.js";
import type { WriteOutcome } from "./commit.js";
import { createCommitter } from "./committer.js";
import { type CompiledDefinition, type CompiledTask, DefinitionFault } from "../advance/compiled-definition.js";
import { createDefinitionCache } from "../../definitions/compiled-cache.js";
import { configRoot } from "../advance/config-root.js";
import { fetchPolicyOf } from "../advance/host-policy.js";
import { redactAdvanceResult, redactText, secretsCache } from "../secrets.js";
import { runFetch } from "../advance/tasks/fetch.js";
import { evalLimitFlag, evalLimitsOf, flagOf } from "../../limits.js";
import { stateLimitFailure } from "../advance/state-limit.js";
import { asInstanceState, type InstanceState } from "../advance/instance-state.js";
import { appendLogs } from "../audit-log.js";
import { pruneExternalClaims } from "../external/claim-retention.js";
import { pruneStartKeys } from "../start.js";
import { listRefs, resolveRefs } from "../../storage/objects.js";
import { isSettled, LEASE_MARGIN_MS, LEASE_MS, LEASE_RENEW_MS } from "../statuses.js";
import { peekSignal } from "../external/signal-buffer.js";
import { type EngineMetrics, NO_ENGINE_METRICS, statusClass } from "../../metrics/metrics.js";
import { errorText, errorStack } from "../../storage/loggable-error.js";

/** An advance (or chain of advances) this process runs under one lease. */
interface InFlight {
  leaseEpoch: number;
  /**
   * The lease expiry in this holder's view: always computed from a timestamp taken before the
   * statement that set it was sent, so it never exceeds the row's (docs/engine.md).
   */
  leaseUntil: number;
  abort: AbortController;
  /** Its write is queued or running: a renewal that misses the row then proves nothing. */
  writing: boolean;
  done: Promise<unknown>;
}

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
}

const STOP_GRACE_MS = 5_000;
/** Advances one instance may run back to back under one lease before it queues again. */
const MAX_CHAIN = 16;
const FINALISE_EVERY_MS = 1_000;
const PRUNE_EVERY_MS = 60_000;
/** A wake waits this long so that slots freed by one commit are claimed together. */
const WAKE_DELAY_MS = 2;

/**
 * The pump (docs/engine.md#the-pump-claims-and-leases): claim rounds every `pollMs` and on wake(), at most `maxConcurrent`
 * advances in flight, leases renewed while they run, results group-committed.
 */
export function createEngine(deps: EngineDeps): EngineHandle {
  const { db, clock, config, log, workerId } = deps;
  const env = deps.env ?? process.env;
  const definitions = createDefinitionCache(db);
  const metrics = deps.metrics ?? NO_ENGINE_METRICS;
  const committer = createCommitter(db, clock, config.objectThresholdBytes, log, {
    writers: deps.writers ?? 1,
    onBatch: metrics.committed,
    othersRunning: () => {
      for (const entry of inFlight.values()) if (!entry.writing) return true;
      return false;
    },
  });
  const configRoots = new WeakMap<CompiledDefinition, { [key: string]: Json }>();
  const secretsOf = secretsCache(env);
  const evalLimits = evalLimitsOf(config.limits);
  const treeLimits = {
    maxDepth: config.limits.treeDepth,
    maxInstances: config.limits.treeInstances,
    depthFlag: flagOf("treeDepth"),
    instancesFlag: flagOf("treeInstances"),
  };
  const treeMemo = newTreeMemo();
  const fetchPolicy = fetchPolicyOf(config);
  const inFlight = new Map<string, InFlight>();
  let reserved = 0;
  let lastLeaseAt = 0;
  let stopped = false;
  let pollTimer: NodeJS.Timeout | undefined;
  let wakeScheduled = false;
  let pumpRound: Promise<void> | undefined;
  let pumpAgain = false;

  const renewTimer = setInterval(() => void renew(), LEASE_RENEW_MS);
  renewTimer.unref();

  // One debug line a second while work flows: where an advance waits shows in these ratios.
  const claims = { rounds: 0, rows: 0, claimMs: 0 };
  let reported = { rounds: 0, rows: 0, claimMs: 0, batches: 0, advances: 0, writeMs: 0 };
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const statsTimer = setInterval(() => {
    const now = { ...claims, ...committer.stats };
    if (now.rounds === reported.rounds && now.batches === reported.batches) return;
    log.debug("engine stats", {
      in_flight: inFlight.size,
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

  // While the database is unreachable every poll fails the same way: one warn line a second
  // for all of them, not an error line per poll (docs/engine.md, "When the database goes away").
  let lastUnavailableLog = Number.NEGATIVE_INFINITY;
  function logFailure(what: string, error: unknown): void {
    if (!isDatabaseUnavailable(error)) {
      log.error(`${what} failed`, { error: errorText(error) });
      return;
    }
    if (performance.now() - lastUnavailableLog < 1_000) return;
    lastUnavailableLog = performance.now();
    log.warn(`${what} failed: the database is unreachable`, { code: databaseErrorCode(error) ?? null });
  }

  async function renew(): Promise<void> {
    // A row whose write is queued or running is left alone: that write sets its lease (kept or
    // released), and a renewal racing it could make the holder's view outrun the row's.
    const held = [...inFlight].filter(([, v]) => !v.writing).map(([id, v]) => ({ id, leaseEpoch: v.leaseEpoch }));
    if (held.length === 0) return;
    try {
      const sentAt = clock.now();
      const lost = await renewLeases(db, workerId, sentAt, held);
      lastLeaseAt = clock.now();
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
    } catch (error) {
      logFailure("lease renewal", error);
    }
  }

  /**
   * A chore of the claim round that the pump runs at most every `everyMs` (a tick always runs
   * it: /tick is one full poll cycle). A failure is logged, never thrown into the round.
   */
  function periodic(what: string, everyMs: number, chore: () => Promise<void>): (force: boolean) => Promise<void> {
    let last = Number.NEGATIVE_INFINITY;
    return async (force) => {
      if (!force && performance.now() - last < everyMs) return;
      last = performance.now();
      try {
        await chore();
      } catch (error) {
        logFailure(what, error);
      }
    };
  }

  // Abandoned pause/cancel rows are rare: checked at most once a second.
  const finalise = periodic("finalising abandoned pause/cancel", FINALISE_EVERY_MS, async () => {
    if (!(await hasAbandoned(db, clock.now()))) return;
    await inTransaction(db, async (tx) => {
      const rows = await finaliseAbandoned(tx, clock.now());
      await appendLogs(
        tx,
        clock,
        rows.map((r) => ({
          instanceId: r.id,
          rootId: r.rootId,
          level: "info" as const,
          event: `instance.${r.status}`,
          message: `${r.status}: the worker that held the lease stopped before the task boundary`,
          task: r.task,
        })),
      );
    });
  });

  // Housekeeping, not correctness: once a minute.
  const pruneClaims = periodic("pruning external claim tokens", PRUNE_EVERY_MS, async () => {
    const pruned = await pruneExternalClaims(db, clock.now());
    if (pruned > 0) log.debug("pruned external claim tokens", { count: pruned });
    const keys = await pruneStartKeys(db, clock.now());
    if (keys > 0) log.debug("pruned expired start Idempotency-Keys", { count: keys });
  });

  /** Claims up to the free slots and starts their advances; each promise says whether the write landed. */
  async function claimRound(limit = Number.POSITIVE_INFINITY, fromTick = false): Promise<Array<Promise<WriteOutcome>>> {
    await finalise(fromTick);
    await pruneClaims(fromTick);
    const free = Math.min(limit, Math.max(0, config.maxConcurrent - inFlight.size - reserved));
    if (free === 0) return [];
    reserved += free;
    let claimed: ClaimedRow[];
    const began = performance.now();
    const sentAt = clock.now();
    try {
      claimed = await claimDue(db, workerId, sentAt, free);
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

  function start(row: ClaimedRow, chain: boolean, leaseUntil: number): Promise<WriteOutcome> {
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
  async function runChain(row: ClaimedRow, entry: InFlight, chain: boolean): Promise<WriteOutcome> {
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

  async function run(
    row: ClaimedRow,
    stored: InstanceState | undefined,
    entry: InFlight,
    keepLease: boolean,
  ): Promise<WriteOutcome> {
    const abandoned = entry.abort.signal;
    let secrets: string[] = [];
    const began = performance.now();
    let taskKind = "unknown";
    const report = (outcome: string) => metrics.advanced(taskKind, outcome, (performance.now() - began) / 1000);
    try {
      const storedState = stored ?? asInstanceState(parseJson(row.stateText));
      const storedJson = storedState as unknown as Json;
      // Claimed too often without a write landing (a crash or a write that keeps failing):
      // fail it as it stands, reading nothing more that could be what crashes
      // (docs/limits.md#poison-instances).
      const crashed = row.attempts > config.limits.advanceAttempts;
      const state =
        !crashed && listRefs(storedJson).length > 0 ? asInstanceState(await resolveRefs(db, storedJson)) : storedState;
      // After the last round trip before the advance (claim, kept-lease write, object reads).
      checkLease(row, entry);
      let result: AdvanceResult;
      try {
        const def = await definitions.get(row.process, row.version);
        secrets = secretsOf(def.definition);
        const task = def.byId.get(row.task)?.task;
        taskKind = task?.action?.type ?? "routing";
        if (row.reclaimedFrom !== null && task?.only_once) metrics.onlyOnceInterrupted();
        result = crashed
          ? crashedFailure(row, state, config.limits.advanceAttempts)
          : await advance(
              def,
              {
                id: row.id,
                process: row.process,
                version: row.version,
                task: row.task,
                taskEpoch: row.taskEpoch,
                retryCount: row.retryCount,
                state,
                reclaimed: row.reclaimedFrom !== null,
                previousOwner: row.reclaimedFrom,
              },
              {
                worker: workerId,
                now: () => clock.now(),
                random: Math.random,
                config: () => {
                  let root = configRoots.get(def);
                  if (root === undefined) {
                    root = configRoot(def.definition, env);
                    configRoots.set(def, root);
                  }
                  return root;
                },
                fetch: (task: CompiledTask, scope: Scope, taskEpoch: number) => {
                  // The request leaves right after this check: the definition and signal reads are behind it.
                  checkLease(row, entry);
                  return runFetch(task.fetch!, {
                    instanceId: row.id,
                    taskId: task.task.id,
                    taskEpoch,
                    scope,
                    policy: fetchPolicy,
                    defs: def.definition.$defs,
                    abort: abandoned,
                    observeCall: (url, status, seconds) => metrics.fetched(url, statusClass(status), seconds),
                  });
                },
                peekSignal: abandonWhenUnavailable((task: string) => peekSignal(db, row.id, task)),
                children: childReads(
                  childEnvironment(
                    db,
                    clock,
                    definitions,
                    { id: row.id, rootId: row.rootId, process: row.process, version: row.version },
                    treeLimits,
                    treeMemo,
                  ),
                ),
                evalLimits,
                limitFlag: (error) => evalLimitFlag(error.limit),
              },
            );
      } catch (error) {
        if (!(error instanceof DefinitionFault)) throw error;
        result = definitionFailure(row, state, error.message);
      }
      // Before redaction: an oversized state is never walked again, nor written.
      result = stateLimitFailure(result, state, config.limits.stateBytes, flagOf("stateBytes")) ?? result;
      result = redactAdvanceResult(result, secrets);
      if (abandoned.aborted) {
        report("abandoned");
        return { applied: false };
      }
      entry.writing = true;
      const outcome = await committer
        .submit({ claim: row, storedState, result, keepLeaseFor: keepLease ? workerId : undefined })
        .finally(() => (entry.writing = false));
      report(outcome.applied ? result.status : "dropped");
      if (!outcome.applied)
        log.warn("advance dropped: the lease moved on", { instance: row.id, lease_epoch: row.leaseEpoch });
      // Work this write made due elsewhere in the tree: the children it spawned, or the parent
      // a settling child may have woken. Without a wake they would wait for the next poll.
      else if ((result.spawns?.length ?? 0) > 0 || (row.parentId !== null && isSettled(outcome.status ?? ""))) wake();
      return outcome;
    } catch (error) {
      if (error instanceof LeaseTooShort) {
        // Nothing was sent: drop the advance and let the lease expire (docs/engine.md).
        log.warn("advance dropped: too little of the lease left to act", {
          instance: row.id,
          lease_epoch: row.leaseEpoch,
          lease_left_ms: error.leftMs,
        });
        return { applied: false };
      }
      if (error instanceof AdvanceAbandoned || isDatabaseUnavailable(error)) {
        log.warn("advance dropped: the database is unreachable", { instance: row.id, lease_epoch: row.leaseEpoch });
        return { applied: false };
      }
      // The lease expires and another round retries the instance (as a reclaim).
      report("error");
      log.error("advance failed", {
        instance: row.id,
        error: redactText(errorText(error), secrets),
        stack: redactText(String(errorStack(error)), secrets),
      });
      return { applied: false };
    }
  }

  /** Throws LeaseTooShort unless the lease has LEASE_MARGIN_MS left in this holder's view. */
  function checkLease(row: ClaimedRow, entry: InFlight): void {
    const leftMs = entry.leaseUntil - clock.now();
    if (leftMs < LEASE_MARGIN_MS) throw new LeaseTooShort(row.id, leftMs);
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
      clearInterval(statsTimer);
      loopDelay.disable();
      await pumpRound;
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

/** Raised before an action when the lease is about to expire: the advance is dropped, nothing sent. */
class LeaseTooShort extends AdvanceAbandoned {
  constructor(
    readonly instanceId: string,
    readonly leftMs: number,
  ) {
    super(`the lease of instance ${instanceId} has ${leftMs} ms left, less than the ${LEASE_MARGIN_MS} ms margin`);
  }
}

/** A read the advance needs failed because the database is gone: abandon, never fail the task. */
function abandonWhenUnavailable<A extends unknown[], R>(read: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return (...args) =>
    read(...args).catch((error: unknown) => {
      if (isDatabaseUnavailable(error)) throw new AdvanceAbandoned("the database is unreachable", { cause: error });
      throw error;
    });
}

function childReads(children: ChildEnvironment): ChildEnvironment {
  return {
    ...children,
    resolveChild: abandonWhenUnavailable(children.resolveChild),
    loadChildren: abandonWhenUnavailable(children.loadChildren),
    checkTreeRoom: abandonWhenUnavailable(children.checkTreeRoom),
  };
}

function crashedFailure(row: ClaimedRow, state: ReturnType<typeof asInstanceState>, limit: number): AdvanceResult {
  const text = `task "${row.task}": engine.crashed: the instance was claimed ${row.attempts} times since its last write without an advance landing (the process running it stopped, or its write kept failing); it fails instead of being tried again (${flagOf("advanceAttempts")} is ${limit})`;
  return {
    status: "failed",
    task: row.task,
    taskEpoch: row.taskEpoch,
    retryCount: row.retryCount,
    state,
    written: new Set(),
    errorCode: "engine.crashed",
    errorMessage: text,
    wakeAt: null,
    logs: [
      { level: "error", event: "instance.failed", message: text, task: row.task, data: { code: "engine.crashed" } },
    ],
  };
}

function definitionFailure(row: ClaimedRow, state: ReturnType<typeof asInstanceState>, message: string): AdvanceResult {
  const text = `task "${row.task}": engine.definition: ${message}`;
  return {
    status: "failed",
    task: row.task,
    taskEpoch: row.taskEpoch,
    retryCount: row.retryCount,
    state,
    written: new Set(),
    errorCode: "engine.definition",
    errorMessage: text,
    wakeAt: null,
    logs: [
      { level: "error", event: "instance.failed", message: text, task: row.task, data: { code: "engine.definition" } },
    ],
  };
}
