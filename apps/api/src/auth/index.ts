import { type ServerConfig, isLoopback } from "../config.js";
import type { Principal } from "./principal.js";
import { ApiError } from "../http/api-error.js";
import { type Logger, type ThrottledLog, throttledLog } from "@baton/log";
import type { Clock } from "../clock.js";
import type { Db } from "../storage/db.js";
import { parseBearerCredential } from "./bearer-credential.js";
import { loadJwtSettings } from "./jwt-settings.js";
import { type JwtSettings, verifyJwt } from "./jwt-verifier.js";
import { authenticateToken } from "./token-authentication.js";

export { authorize } from "./permissions.js";

export interface Authenticator {
  /** Throws ApiError `unauthenticated` (with WWW-Authenticate: Bearer) for a missing or bad credential. */
  authenticate(authorization: string | undefined): Promise<Principal>;
}

/** Everyone under `--auth none`: no identity, every endpoint open. */
export const OPEN_PRINCIPAL: Principal = Object.freeze({
  actor: null,
  perms: Object.freeze(["admin"]),
  scopes: null,
});

export function unauthenticated(reason: string): ApiError {
  return new ApiError("unauthenticated", reason, { headers: { "WWW-Authenticate": "Bearer" } });
}

/**
 * The start-up refusals of createAuthenticator without a database: callers may run it before
 * opening one, so a bad secret file fails fast. Throws one line.
 */
export function checkAuthConfig(config: ServerConfig): void {
  if (config.auth !== "none" && config.auth !== "token")
    throw new Error(`--auth ${String(config.auth)} is not an auth mode; expected none or token`);
  loadJwtSettings(config);
}

/**
 * Throws (one line, for main.ts to print before exiting) when the JWT flags are incomplete or
 * the secret file is missing, unreadable or shorter than 32 characters after trimming.
 * Warns when `--auth none` listens beyond loopback.
 */
export async function createAuthenticator(
  config: ServerConfig,
  deps: { db: Db; clock: Clock; log: Logger },
): Promise<Authenticator> {
  const { db, clock, log } = deps;
  const jwt = loadJwtSettings(config);
  if (config.auth === "none") {
    if (!isLoopback(config.host)) {
      log.warn(
        `authentication is off (--auth none) while listening on ${config.host}: anyone who can reach this address can use every endpoint, tokens and /tick included; start with --auth token`,
        { auth: "none", host: config.host },
      );
    }
    if (jwt)
      log.warn("the --jwt-* flags have no effect under --auth none; add --auth token to require credentials", {
        auth: "none",
      });
    // The header is never read in this mode.
    return { authenticate: async () => OPEN_PRINCIPAL };
  }
  if (config.auth !== "token")
    throw new Error(`--auth ${String(config.auth)} is not an auth mode; expected none or token`);
  log.info("authentication required (--auth token)", {
    auth: "token",
    jwt: jwt ? { issuer: jwt.issuer, audience: jwt.audience } : false,
  });
  // Anyone can send refused credentials as fast as they like: a line per reason per 10 s.
  const refusals = throttledLog((msg, fields) => log.info(msg, fields), 10_000);
  return { authenticate: (header) => authenticateBearer(header, { db, clock, log, jwt, refusals }) };
}

async function authenticateBearer(
  header: string | undefined,
  deps: { db: Db; clock: Clock; log: Logger; jwt: JwtSettings | null; refusals: ThrottledLog },
): Promise<Principal> {
  const credential = parseBearerCredential(header);
  if (credential.kind === "refused") throw refuse(deps.refusals, credential.reason, "none");
  if (credential.kind === "token") {
    const verdict = await authenticateToken(deps.db, credential.secret, deps.clock.now());
    if (!verdict.ok) throw refuse(deps.refusals, verdict.reason, "token", verdict.tokenId);
    deps.log.debug("authenticated", { actor: verdict.principal.actor, credential: "token" });
    return verdict.principal;
  }
  if (!deps.jwt) {
    throw refuse(
      deps.refusals,
      "this server accepts no JWTs: it was started without --jwt-secret-file, --jwt-issuer and --jwt-audience",
      "jwt",
    );
  }
  const verdict = await verifyJwt(credential.jwt, deps.jwt, deps.clock.now());
  if (!verdict.ok) throw refuse(deps.refusals, verdict.reason, "jwt");
  deps.log.debug("authenticated", { actor: verdict.principal.actor, credential: "jwt" });
  return verdict.principal;
}

// Logged fields are the reason and the token id only: never the header, secret or JWT. At most
// one line per credential kind and reason per 10 s, with the count of those held back.
function refuse(
  refusals: ThrottledLog,
  reason: string,
  credential: "none" | "token" | "jwt",
  tokenId?: string,
): ApiError {
  refusals.log(
    `${credential}:${reason}`,
    "credential refused",
    tokenId ? { credential, reason, token_id: tokenId } : { credential, reason },
  );
  return unauthenticated(reason);
}
