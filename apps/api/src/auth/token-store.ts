import type { Permission, Token } from "@baton/actions";
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "../storage/db.js";
import { newId } from "../storage/ids.js";
import { tokens } from "../storage/schema/tokens.js";
import type { TokenRequest } from "./token-request.js";
import { generateTokenSecret, hashTokenSecret } from "./token-secret.js";
import { iso, isoOrNull } from "../format.js";

export type TokenRow = typeof tokens.$inferSelect;

/** A token as GET /tokens shows it: never the secret nor its hash. */
export type TokenView = Token;

/** The one response that carries the secret (POST /tokens, `tokens create`). */
export interface IssuedToken {
  id: string;
  token: string;
  label: string;
  perms: Permission[] | null;
  scopes: string[] | null;
  created_at: string;
  expires_at: string | null;
}

export function tokenPerms(row: Pick<TokenRow, "perms">): string[] | null {
  return row.perms === null ? null : (JSON.parse(row.perms) as string[]);
}

export function tokenScopes(row: Pick<TokenRow, "scopes">): string[] | null {
  return row.scopes === null ? null : (JSON.parse(row.scopes) as string[]);
}

export function tokenView(row: TokenRow): TokenView {
  return {
    id: row.id,
    label: row.label,
    perms: tokenPerms(row) as Permission[] | null,
    scopes: tokenScopes(row),
    created_at: iso(row.createdAt),
    last_used_at: isoOrNull(row.lastUsedAt),
    expires_at: isoOrNull(row.expiresAt),
    revoked_at: isoOrNull(row.revokedAt),
  };
}

/** Stores only the sha256 of the new secret; the secret exists nowhere but in the result. */
export async function issueToken(
  db: Db,
  request: TokenRequest,
  context: { now: number; actor: string | null },
): Promise<IssuedToken> {
  const secret = generateTokenSecret();
  const id = newId(context.now);
  await db.insert(tokens).values({
    id,
    label: request.label,
    perms: request.perms === null ? null : JSON.stringify(request.perms),
    scopes: request.scopes === null || request.scopes === undefined ? null : JSON.stringify(request.scopes),
    secretHash: hashTokenSecret(secret),
    actor: context.actor,
    createdAt: context.now,
    expiresAt: request.expiresAt,
  });
  return {
    id,
    token: secret,
    label: request.label,
    perms: request.perms,
    scopes: request.scopes ?? null,
    created_at: iso(context.now),
    expires_at: isoOrNull(request.expiresAt),
  };
}

/** Newest first, revoked and expired ones included (they say so). */
export async function listTokenRows(db: Db): Promise<TokenRow[]> {
  return db.select().from(tokens).orderBy(desc(tokens.createdAt), desc(tokens.id));
}

export async function findTokenBySecret(db: Db, secret: string): Promise<TokenRow | undefined> {
  const [row] = await db
    .select()
    .from(tokens)
    .where(eq(tokens.secretHash, hashTokenSecret(secret)))
    .limit(1);
  return row;
}

export type RevokeOutcome = "revoked" | "already_revoked" | "unknown";

/** Keeps the first revocation time when called again. */
export async function revokeToken(
  db: Db,
  id: string,
  context: { now: number; actor: string | null },
): Promise<RevokeOutcome> {
  const updated = await db
    .update(tokens)
    .set({ revokedAt: context.now, revokedBy: context.actor })
    .where(and(eq(tokens.id, id), isNull(tokens.revokedAt)))
    .returning({ id: tokens.id });
  if (updated.length) return "revoked";
  const [row] = await db.select({ id: tokens.id }).from(tokens).where(eq(tokens.id, id)).limit(1);
  return row ? "already_revoked" : "unknown";
}

export async function touchTokenLastUsed(db: Db, id: string, now: number): Promise<void> {
  await db.update(tokens).set({ lastUsedAt: now }).where(eq(tokens.id, id));
}
