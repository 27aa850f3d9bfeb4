import { iso } from "../format.js";
import type { Principal } from "./principal.js";
import type { Db } from "../storage/db.js";
import { isTokenSecretShape } from "./token-secret.js";
import { findTokenBySecret, tokenPerms, tokenScopes, touchTokenLastUsed } from "./token-store.js";

/** `last_used_at` is written at most this often per token, so a busy worker does not write on every call. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export type TokenVerdict =
  | { ok: true; principal: Principal; tokenId: string }
  | { ok: false; reason: string; tokenId?: string };

/**
 * Looks the secret up by its hash on every call (no cache), so a revocation or an expiry is
 * seen by the very next request. The reasons never quote the secret.
 */
export async function authenticateToken(db: Db, secret: string, now: number): Promise<TokenVerdict> {
  if (!isTokenSecretShape(secret))
    return { ok: false, reason: "the svc_sk_ token is malformed (it was not issued by this service)" };
  const row = await findTokenBySecret(db, secret);
  if (!row) return { ok: false, reason: "the svc_sk_ token is not known to this server" };
  if (row.revokedAt !== null) return { ok: false, reason: "the svc_sk_ token has been revoked", tokenId: row.id };
  if (row.expiresAt !== null && row.expiresAt <= now) {
    return {
      ok: false,
      reason: `the svc_sk_ token expired at ${iso(row.expiresAt)}`,
      tokenId: row.id,
    };
  }
  if (row.lastUsedAt === null || now - row.lastUsedAt >= LAST_USED_RESOLUTION_MS)
    await touchTokenLastUsed(db, row.id, now);
  return {
    ok: true,
    tokenId: row.id,
    principal: {
      actor: `token:${row.id}`,
      perms: Object.freeze(tokenPerms(row) ?? []),
      scopes: row.scopes === null ? null : Object.freeze(tokenScopes(row)!),
    },
  };
}
