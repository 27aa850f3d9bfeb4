// The engine's public surface. Handlers (and server.ts) import the engine only from here; the
// rooms behind it (advance/, pump/, trees/, external/) are free to change shape. See
// docs/architecture.md for what each room owns.

export { levelsFrom } from "./audit-log.js";
export { claimableTasks, claimWaiting, endClaimWaits } from "./external/claim-wait.js";
export {
  claimExternalTasks,
  releaseExternalTask,
  renewBeforeMs,
  renewExternalTasks,
} from "./external/claims.js";
export type { Outcome } from "./external/delivery.js";
export { resolveExternalTask, resolveExternalTasks } from "./external/outcomes.js";
export { type SignalGuard, signalExternalTask } from "./external/signal.js";
export { createEngine, type EngineDeps } from "./pump/engine.js";
export { retentionPass, startRetention } from "./pump/retention.js";
export { redactJsonText } from "./secrets.js";
export { startInstance } from "./start.js";
export { cancelTree, type LifecycleResult, pauseTree, resumeTree } from "./trees/lifecycle.js";
export { retryTree } from "./trees/retry.js";
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
export { type ScheduleWarning, scheduledOnChannel, scheduleWarnings } from "./schedules/channel-check.js";
