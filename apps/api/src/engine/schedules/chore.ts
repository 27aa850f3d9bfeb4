// The firing pass beside the pump's claim rounds (docs/schedules.md "The firing pass"): each
// round starts a pass in the background when none runs, at most every PASS_EVERY_MS and at once
// again after a pass that hit its bound, so firing never holds up a claim; a POST /tick runs
// passes inline until nothing due is left (bounded), so a tick's claim sees what they started.
import type { FailureLog } from "../pump/failure-log.js";
import { firingPass, type PassDeps } from "./pass.js";
import { pruneFires } from "./prune.js";

const PASS_EVERY_MS = 200;
/** Passes one /tick runs at most: with the default bound, 20,000 fire times. */
const MAX_PASSES_PER_TICK = 100;
/** How often a sweep step prunes fire records (prune.ts), after a pass; every tick runs one. */
const PRUNE_EVERY_MS = 5_000;

export interface ScheduleChore {
  /** The claim round's chore; `force` (a tick) waits for the passes. */
  run(force: boolean): Promise<void>;
  /** Resolves once no pass is running (the engine's stop waits for it before the database closes). */
  idle(): Promise<void>;
}

export function createScheduleChore(deps: PassDeps & { logFailure: FailureLog; wake: () => void }): ScheduleChore {
  let last = Number.NEGATIVE_INFINITY;
  let again = false;
  let running: Promise<void> | undefined;
  let lastPrune = Number.NEGATIVE_INFINITY;
  let sweepAfter = "";

  async function passes(force: boolean): Promise<void> {
    last = performance.now();
    try {
      let fired = 0;
      for (let count = 1; ; count++) {
        const result = await firingPass(deps);
        fired += result.fired;
        again = result.full;
        if (!force || !again || count >= MAX_PASSES_PER_TICK) break;
      }
      // What the passes started is due now: the pump claims it (a tick claims it itself).
      if (!force && (fired > 0 || again)) deps.wake();
      if (force || performance.now() - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = performance.now();
        sweepAfter = (await pruneFires(deps.db, sweepAfter, deps.config.limits.scheduleFiresKept)).next;
      }
    } catch (error) {
      again = false;
      deps.logFailure("firing schedules", error);
    }
  }

  return {
    async run(force) {
      if (force) {
        await running;
        return passes(true);
      }
      if (running !== undefined || (!again && performance.now() - last < PASS_EVERY_MS)) return;
      running = passes(false).finally(() => {
        running = undefined;
      });
    },
    idle: async () => {
      await running;
    },
  };
}
