// The firing pass as a chore of the pump's claim round (docs/schedules.md "The firing pass"):
// at most every PASS_EVERY_MS, at once again after a pass that hit its bound, and on every
// POST /tick until nothing due is left (bounded).
import type { FailureLog } from "../pump/failure-log.js";
import { firingPass, type PassDeps } from "./pass.js";

const PASS_EVERY_MS = 200;
/** Passes one /tick runs at most: with the default bound, 20,000 fire times. */
const MAX_PASSES_PER_TICK = 100;

export function createScheduleChore(
  deps: PassDeps & { logFailure: FailureLog; wake: () => void },
): (force: boolean) => Promise<void> {
  let last = Number.NEGATIVE_INFINITY;
  let again = false;
  return async (force) => {
    if (!force && !again && performance.now() - last < PASS_EVERY_MS) return;
    last = performance.now();
    try {
      for (let passes = 1; ; passes++) {
        const result = await firingPass(deps);
        again = result.full;
        if (!force || !again || passes >= MAX_PASSES_PER_TICK) break;
      }
      if (again) deps.wake();
    } catch (error) {
      again = false;
      deps.logFailure("firing schedules", error);
    }
  };
}
