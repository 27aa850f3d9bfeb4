// Delivery passes beside the pump's claim rounds (docs/events.md "Delivery"): each round starts
// passes in the background when none runs, at most every PASS_EVERY_MS, a full pass followed at
// once by the next (MAX_PASSES_IN_A_ROW), so a slow receiver never holds up a claim; a POST /tick runs
// passes inline until none claims anything (bounded), so a test's tick delivers what is due.
import type { FailureLog } from "../pump/failure-log.js";
import { type DeliveryDeps, deliveryPass } from "./deliver.js";

const PASS_EVERY_MS = 200;
/** Passes one /tick runs at most. */
const MAX_PASSES_PER_TICK = 20;
/** Full passes run back to back in the background before the next claim round starts another. */
const MAX_PASSES_IN_A_ROW = 10;

export interface DeliveryChore {
  /** The claim round's chore; `force` (a tick) waits for the passes. */
  run(force: boolean): Promise<void>;
  /** Resolves once no pass is running (the engine's stop waits for it before the database closes). */
  idle(): Promise<void>;
}

export function createDeliveryChore(deps: DeliveryDeps & { logFailure: FailureLog }): DeliveryChore {
  let last = Number.NEGATIVE_INFINITY;
  let again = false;
  let running: Promise<void> | undefined;

  async function passes(force: boolean): Promise<void> {
    last = performance.now();
    try {
      for (let count = 1; ; count++) {
        const claimed = await deliveryPass(deps);
        again = claimed >= deps.config.limits.deliveriesPerPass;
        if (claimed === 0 || count >= (force ? MAX_PASSES_PER_TICK : MAX_PASSES_IN_A_ROW)) break;
        if (!force && !again) break;
      }
    } catch (error) {
      again = false;
      deps.logFailure("delivering events", error);
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
