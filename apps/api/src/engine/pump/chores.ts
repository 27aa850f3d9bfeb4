import type { Logger } from "@baton/log";
import type { Clock } from "../../clock.js";
import type { Db } from "../../storage/db.js";
import { pruneExternalClaims } from "../housekeeping/claim-retention.js";
import { pruneStartKeys } from "../housekeeping/start-key-retention.js";
import { finaliseAbandoned } from "../trees/lifecycle.js";
import { ROLLUP_BATCH, rollUpCounts } from "./count-rollup.js";
import type { FailureLog } from "./failure-log.js";

const FINALISE_EVERY_MS = 1_000;
const PRUNE_EVERY_MS = 60_000;
// Pending count deltas are read with the totals on every count, so the fold keeps them few.
const ROLLUP_EVERY_MS = 1_000;

/** A chore of the claim round; `force` (a /tick) runs it whatever its period. */
export type Chore = (force: boolean) => Promise<void>;

/**
 * A chore of the claim round that the pump runs at most every `everyMs` (a tick always runs
 * it: /tick is one full poll cycle). A failure is logged, never thrown into the round.
 */
function periodic(what: string, everyMs: number, logFailure: FailureLog, chore: () => Promise<void>): Chore {
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

/** The chores every claim round runs first, each at its own period. */
export function createChores(db: Db, clock: Clock, log: Logger, logFailure: FailureLog): Chore[] {
  // Abandoned pause/cancel rows are rare: checked at most once a second.
  const finalise = periodic("finalising abandoned pause/cancel", FINALISE_EVERY_MS, logFailure, () =>
    finaliseAbandoned(db, clock),
  );
  // Housekeeping, not correctness: once a minute.
  const pruneKeys = periodic("pruning external claim tokens", PRUNE_EVERY_MS, logFailure, async () => {
    const pruned = await pruneExternalClaims(db, clock.now());
    if (pruned > 0) log.debug("pruned external claim tokens", { count: pruned });
    const keys = await pruneStartKeys(db, clock.now());
    if (keys > 0) log.debug("pruned expired start Idempotency-Keys", { count: keys });
  });

  // Folds the counters' deltas (engine/pump/count-rollup.ts); a backlog is worked off in batches.
  const rollup = periodic("rolling up instance counts", ROLLUP_EVERY_MS, logFailure, async () => {
    for (let i = 0; i < 20 && (await rollUpCounts(db)) === ROLLUP_BATCH; i++);
  });

  return [finalise, pruneKeys, rollup];
}
