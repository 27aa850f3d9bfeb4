import type { ActionSpec } from "@baton/actions";
import type { ServerConfig } from "../config.js";
import type { Principal } from "../http/action-handler.js";
import type { Logger } from "../logger.js";
import type { Clock } from "../storage/clock.js";
import type { Db } from "../storage/db.js";

export interface Authenticator {
  /** Throws ApiError `unauthenticated` (with WWW-Authenticate: Bearer) for a missing or bad credential. */
  authenticate(authorization: string | undefined): Promise<Principal>;
}

const OPEN: Principal = { actor: null, perms: ["admin"] };

// Placeholder until the auth issue lands: only `--auth none`.
export async function createAuthenticator(config: ServerConfig, _deps: { db: Db; clock: Clock; log: Logger }): Promise<Authenticator> {
  if (config.auth !== "none") throw new Error(`--auth ${config.auth} is not implemented yet`);
  return { authenticate: async () => OPEN };
}

/** Throws ApiError `forbidden` naming the permission needed. */
export function authorize(_principal: Principal, _action: ActionSpec): void {}
