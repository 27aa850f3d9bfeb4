// The engine's public surface. Handlers (and server.ts) import the engine only from here; the
// rooms behind it are free to change shape. See docs/architecture.md for what each room owns.
// No file of the engine imports this one: what a room needs of the handle is in carry.ts.
import type { EngineForRequests } from "./carry.js";
import { type EngineDeps, startPump } from "./pump/engine.js";

export { levelsFrom } from "./audit-log.js";
export { claimableTasks, claimWaiting, endClaimWaits } from "./external/claim-wait.js";
export {
  claimExternalTasks,
  releaseExternalTask,
  renewBeforeMs,
  renewExternalTasks,
  newClaimToken,
  tokenHash,
} from "./external/claims.js";
export type { Outcome } from "./external/delivery.js";
export { resolveExternalTask, resolveExternalTasks } from "./external/outcomes.js";
export { type SignalGuard, signalExternalTask } from "./external/signal.js";
export type { EngineDeps } from "./pump/engine.js";
export type { EngineForRequests } from "./carry.js";
export { retentionPass, startRetention } from "./housekeeping/retention.js";
export { declareSecretValues, redactJsonText } from "./secrets.js";
export { startInstance } from "./starts/start.js";
export { cancelTree, type LifecycleResult, pauseTree, resumeTree } from "./trees/lifecycle.js";
export { retryTree } from "./trees/retry.js";
export { type ResetResult, resetTree } from "./trees/reset.js";
export { requireRoot, selectRoots } from "./trees/roots.js";
export { upgradeTree } from "./trees/upgrade.js";
export {
  backfillSchedule,
  deleteSchedule,
  putSchedule,
  readSchedule,
  setSchedulePaused,
  triggerSchedule,
} from "./schedules/verbs.js";
export { lastFires, scheduleView } from "./schedules/view.js";
export { statusesOf } from "./schedules/fire.js";
export type { ScheduleRow } from "./schedules/rows.js";

/** What the engine exposes to the HTTP layer and to /healthz. */
export interface EngineHandle extends EngineForRequests {
  /** One full claim round; resolves with the number of instances advanced once their writes are committed. */
  tick(): Promise<number>;
  /** Milliseconds since this worker last renewed or took a lease (0 when idle). */
  leaseAgeMs(): number;
  /** Stop claiming, let in-flight advances finish (bounded), release leases. */
  stop(): Promise<void>;
}

/**
 * The pump (docs/engine.md#the-pump-claims-and-leases): claim rounds every `pollMs` and on
 * wake(), at most `maxConcurrent` advances in flight, leases renewed while they run, results
 * group-committed.
 */
export function createEngine(deps: EngineDeps): EngineHandle {
  return startPump(deps);
}
export { type ScheduleWarning, scheduledOnChannel, scheduleWarnings } from "./schedules/channel-check.js";
export {
  deleteSubscription,
  putSubscription,
  readSubscription,
  redeliver,
  resumeSubscription,
  rotateSecret,
} from "./events/subscriptions.js";
export { listDeliveries, listSubscriptions } from "./events/view.js";
export { receiveHook } from "./hooks/receive.js";
export { deleteHook, hookView, putHook, readHook } from "./hooks/verbs.js";
