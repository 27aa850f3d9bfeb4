import { errors, jwtVerify } from "jose";
import type { Principal } from "./principal.js";

export interface JwtSettings {
  /** HS256 key (readJwtSecretFile). */
  key: Uint8Array;
  issuer: string;
  audience: string;
}

/** Clock skew tolerated between the sign-in proxy and this service, on `exp`, `nbf` and `iat`. */
export const JWT_CLOCK_TOLERANCE_SECONDS = 10;

export type JwtVerdict = { ok: true; principal: Principal } | { ok: false; reason: string };

/**
 * Verifies a JWT minted by the sign-in proxy: HS256 only (so `alg: none` and asymmetric
 * algorithms are refused), signed with the shared secret, `iss` and `aud` equal to the
 * settings, `exp` required and not past (`now` is the service clock). The person is `sub`;
 * `perms` must be an array of strings, the same names tokens use. The reasons never quote
 * the token or its claims.
 */
export async function verifyJwt(jwt: string, settings: JwtSettings, now: number): Promise<JwtVerdict> {
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
    return { ok: false, reason: refusalReason(error) };
  }
  const sub = payload.sub;
  if (typeof sub !== "string" || sub.trim() === "")
    return { ok: false, reason: "the JWT's sub claim must be a non-empty string naming the person" };
  const perms = payload.perms;
  if (!Array.isArray(perms) || !perms.every((p) => typeof p === "string")) {
    return { ok: false, reason: "the JWT's perms claim must be an array of permission names" };
  }
  return { ok: true, principal: { actor: sub, perms: Object.freeze([...perms]) } };
}

function refusalReason(error: unknown): string {
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
