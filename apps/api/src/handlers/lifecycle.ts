import type { ActionHandlers } from "../http/action-handler.js";

/** pauseInstance, resumeInstance, cancelInstance, retryInstance (upgradeInstance later). */
export const lifecycleHandlers: ActionHandlers = {};
