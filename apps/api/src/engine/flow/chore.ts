import type { Clock } from "../../clock.js";
import type { Db } from "../../storage/db.js";
import type { FailureLog } from "../pump/failure-log.js";
import type { ServerConfig } from "../../config.js";
import type { EngineMetrics } from "../../metrics/metrics.js";
import { anyFlowWaits, grantPass } from "./grant.js";

// When the grant pass runs (docs/flow-control.md "The grant pass"): at once after this process
// parked a wait or moved an instance that held a slot (request), at the next free permit of a
// rate key with waits (a timer), and as a chore of the claim round at most every
// FLOW_EVERY_MS for what other replicas freed (a cancel, a lapsed holder); under --poll 0 only
// in a /tick, like the claim round itself. One pass at a time
// per process; a request during a pass runs another after it. A fleet with no wait queued pays
// one read per period.

const FLOW_EVERY_MS = 250;
/** Passes one run makes while each ends at its bound (--limit-flow-grants-per-pass). */
const MAX_PASSES = 20;

export interface FlowChore {
  /** The claim round's chore; `force` (a tick) runs a pass and waits for it. */
  run(force: boolean): Promise<void>;
  /** A pass soon: something was queued or freed here. */
  request(): void;
  idle(): Promise<void>;
  stop(): void;
}

export interface FlowChoreDeps {
  db: Db;
  clock: Clock;
  /** --limit-flow-grants-per-pass; --poll 0: like claim rounds, passes then run only in a /tick. */
  config: Pick<ServerConfig, "limits" | "pollMs">;
  metrics: EngineMetrics;
  logFailure: FailureLog;
  /** Grants made instances due: the pump claims them. */
  wake: () => void;
}

export function createFlowChore(deps: FlowChoreDeps): FlowChore {
  const auto = deps.config.pollMs > 0;
  let last = Number.NEGATIVE_INFINITY;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;

  function schedule(at: number): void {
    if (stopped || !auto || at >= timerAt) return;
    if (timer !== undefined) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timer = undefined;
        timerAt = Number.POSITIVE_INFINITY;
        request();
      },
      Math.max(0, at - deps.clock.now()),
    );
    timer.unref();
  }

  async function passes(checkFirst: boolean): Promise<void> {
    last = performance.now();
    try {
      if (checkFirst && !(await anyFlowWaits(deps.db))) return;
      let granted = 0;
      for (let count = 0; count < MAX_PASSES; count++) {
        const result = await grantPass(deps.db, deps.clock, deps.config.limits.flowGrantsPerPass);
        granted += result.granted;
        deps.metrics.flowGranted("concurrency", result.byReason.concurrency);
        deps.metrics.flowGranted("rate_limit", result.byReason.rate_limit);
        if (result.nextRateAt !== null) schedule(result.nextRateAt);
        if (!result.full) break;
      }
      if (granted > 0) deps.wake();
    } catch (error) {
      deps.logFailure("granting flow-control slots", error);
    }
  }

  function start(checkFirst: boolean): Promise<void> {
    if (running !== undefined) {
      again = true;
      return running;
    }
    running = passes(checkFirst).finally(() => {
      running = undefined;
      if (again && !stopped) {
        again = false;
        void start(false);
      }
    });
    return running;
  }

  function request(): void {
    if (!stopped && auto) void start(false);
  }

  return {
    async run(force) {
      if (force) {
        await running;
        await start(true);
        return;
      }
      if (running !== undefined || performance.now() - last < FLOW_EVERY_MS) return;
      void start(true);
    },
    request,
    idle: async () => {
      while (running !== undefined) await running;
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
