import type { errors as JoseErrors } from "jose";
import { SCOPES_MAX } from "@baton/actions";
import { isPermission } from "./permissions.js";
import { isScopePattern } from "./scope.js";
import type { Principal } from "./principal.js";

export interface JwtSettings {
  /** HS256 key (readJwtSecretFile). */
  key: Uint8Array;
  issuer: string;
  audience: string;
  /** `--limit-jwt-lifetime`: the longest span from iat (or now) to exp accepted. */
  maxLifetimeSeconds: number;
  /** `--jwt-scopes-claim`: the claim holding the person's scope patterns; absent claim = every process. */
  scopesClaim?: string;
}

/** Clock skew tolerated between the sign-in proxy and this service, on `exp`, `nbf` and `iat`. */
export const JWT_CLOCK_TOLERANCE_SECONDS = 10;

/** The actor prefix of API tokens (`token:<id>`, token-authentication.ts): a person's `sub` may not take it. */
export const TOKEN_ACTOR_PREFIX = "token:";

export type JwtVerdict = { ok: true; principal: Principal } | { ok: false; reason: string };

/**
 * Verifies a JWT minted by the sign-in proxy: HS256 only (so `alg: none` and asymmetric
 * algorithms are refused), signed with the shared secret, `iss` and `aud` equal to the
 * settings, `exp` required and not past, `iat` (when present) not in the future, both with
 * JWT_CLOCK_TOLERANCE_SECONDS (`now` is the service clock), and `exp` at most
 * `maxLifetimeSeconds` after `iat` (or after now without one). The person is `sub`, which may
 * not start with `token:` (an API token's actor in audit records). `perms` must be an array of
 * strings; names that are not permissions are dropped (they admit nothing, and no message
 * repeats them). The reasons never quote the token or its claims.
 */
export async function verifyJwt(jwt: string, settings: JwtSettings, now: number): Promise<JwtVerdict> {
  const { errors, jwtVerify } = await jose();
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(jwt, settings.key, {
      algorithms: ["HS256"],
      issuer: settings.issuer,
      audience: settings.audience,
      requiredClaims: ["exp", "sub"],
      clockTolerance: JWT_CLOCK_TOLERANCE_SECONDS,
      currentDate: new Date(now),
    }));
  } catch (error) {
    return { ok: false, reason: refusalReason(error, errors) };
  }
  // jose checks iat's future only under maxTokenAge, which would also cap the age: checked here.
  if (typeof payload.iat === "number" && payload.iat > Math.floor(now / 1000) + JWT_CLOCK_TOLERANCE_SECONDS) {
    return {
      ok: false,
      reason: `the JWT was issued in the future (iat is more than ${JWT_CLOCK_TOLERANCE_SECONDS} s ahead of this server's clock)`,
    };
  }
  // jose accepts any future exp (1e300 included): a stolen JWT would then never expire.
  const from = typeof payload.iat === "number" ? payload.iat : Math.floor(now / 1000);
  if (
    typeof payload.exp !== "number" ||
    payload.exp - from > settings.maxLifetimeSeconds + JWT_CLOCK_TOLERANCE_SECONDS
  ) {
    return {
      ok: false,
      reason: `the JWT is valid for longer than ${settings.maxLifetimeSeconds} s (--limit-jwt-lifetime, docs/auth.md "JWTs from the sign-in proxy"); mint shorter-lived ones`,
    };
  }
  const sub = payload.sub;
  if (typeof sub !== "string" || sub.trim() === "")
    return { ok: false, reason: "the JWT's sub claim must be a non-empty string naming the person" };
  if (sub.startsWith(TOKEN_ACTOR_PREFIX)) {
    return {
      ok: false,
      reason: `the JWT's sub claim may not start with "${TOKEN_ACTOR_PREFIX}": that prefix names API tokens in audit records`,
    };
  }
  const perms = payload.perms;
  if (!Array.isArray(perms) || !perms.every((p) => typeof p === "string")) {
    return { ok: false, reason: "the JWT's perms claim must be an array of permission names" };
  }
  const claimed = payload[settings.scopesClaim ?? "scopes"];
  if (claimed !== undefined && (!Array.isArray(claimed) || !claimed.every((p) => typeof p === "string"))) {
    return {
      ok: false,
      reason: "the JWT's scopes claim (--jwt-scopes-claim) must be an array of process-name patterns",
    };
  }
  // Patterns that are not scope patterns reach nothing and are dropped (never repeated): a
  // claim of only bad ones is an empty scope, which reaches no process, never every process.
  const scopes = claimed === undefined ? null : Object.freeze(claimed.filter(isScopePattern).slice(0, SCOPES_MAX));
  return { ok: true, principal: { actor: sub, perms: Object.freeze(perms.filter(isPermission)), scopes } };
}

// Loaded on the first JWT: a server under --auth none or with API tokens only never loads jose
// (docs/performance.md "Start-up").
let loading: Promise<typeof import("jose")> | undefined;
const jose = () => (loading ??= import("jose"));

function refusalReason(error: unknown, errors: typeof JoseErrors): string {
  if (error instanceof errors.JWTExpired) return "the JWT has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case "iss":
        return "the JWT was issued by another issuer than this server's --jwt-issuer";
      case "aud":
        return "the JWT is meant for another audience than this server's --jwt-audience";
      case "nbf":
        return "the JWT is not valid yet (nbf)";
      case "iat":
        return "the JWT's iat claim is not acceptable";
      default:
        return `the JWT lacks a valid ${error.claim} claim`;
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "the JWT must be signed with HS256";
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return "the JWT's signature does not match this server's --jwt-secret-file";
  return "the credential is not a well-formed JWT";
}
