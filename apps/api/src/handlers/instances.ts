import type { ActionHandlers } from "../http/action-handler.js";

/** startInstance, getInstance, getInstanceDetail, listInstances, listInstanceLogs, getObject. */
export const instanceHandlers: ActionHandlers = {};
