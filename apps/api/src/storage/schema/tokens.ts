import { bigint, pgTable, text } from "drizzle-orm/pg-core";

export const tokens = pgTable("tokens", {
  id: text("id").primaryKey(),
  label: text("label").notNull(),
  /** JSON array of permission names, or null (no permissions). */
  perms: text("perms"),
  /** JSON array of scope patterns, or null: every process (docs/auth.md "Scopes"). */
  scopes: text("scopes"),
  /** sha256 hex of the full secret; the secret itself is never stored. */
  secretHash: text("secret_hash").notNull().unique(),
  /** Who created the token: `token:<id>`, a JWT `sub`, `bootstrap` (the tokens command) or null under --auth none. */
  actor: text("actor"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  lastUsedAt: bigint("last_used_at", { mode: "number" }),
  expiresAt: bigint("expires_at", { mode: "number" }),
  revokedAt: bigint("revoked_at", { mode: "number" }),
  /** Who revoked it, same forms as `actor`. */
  revokedBy: text("revoked_by"),
});
