import type { ActionHandlers } from "../http/action-handler.js";

/** createToken, listTokens, revokeToken. */
export const tokenHandlers: ActionHandlers = {};
