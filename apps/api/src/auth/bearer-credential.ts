import { TOKEN_PREFIX } from "./token-secret.js";

/** What an `Authorization` header carries, classified without verifying anything. */
export type BearerCredential =
  | { kind: "token"; secret: string }
  | { kind: "jwt"; jwt: string }
  | { kind: "refused"; reason: string };

// Compact JWS: three base64url segments; the signature may not be empty (alg "none" leaves it empty).
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Reads `Authorization: Bearer <credential>` (scheme case-insensitive, RFC 7235). The
 * refusal reasons are safe to send to the client and to log: they never quote the header.
 */
export function parseBearerCredential(header: string | undefined): BearerCredential {
  if (header === undefined || header.trim() === "") {
    return {
      kind: "refused",
      reason: "this endpoint needs a credential: send Authorization: Bearer <svc_sk_ token or JWT>",
    };
  }
  const match = /^\s*(\S+)(?:\s+(.*))?$/s.exec(header);
  const scheme = match?.[1] ?? "";
  const credential = (match?.[2] ?? "").trim();
  if (scheme.toLowerCase() !== "bearer") {
    return {
      kind: "refused",
      reason: "the Authorization header must use the Bearer scheme: Authorization: Bearer <svc_sk_ token or JWT>",
    };
  }
  if (credential === "")
    return { kind: "refused", reason: "the Authorization header has the Bearer scheme but no credential after it" };
  if (/\s/.test(credential))
    return { kind: "refused", reason: "the Bearer credential must be a single word (no spaces)" };
  if (credential.startsWith(TOKEN_PREFIX)) return { kind: "token", secret: credential };
  if (COMPACT_JWS.test(credential)) return { kind: "jwt", jwt: credential };
  return { kind: "refused", reason: "the Bearer credential is neither an svc_sk_ token nor a JWT" };
}
