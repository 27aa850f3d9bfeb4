import { createHash, randomBytes } from "node:crypto";

export const TOKEN_PREFIX = "svc_sk_";

/** `svc_sk_` + 32 random bytes in base64url (43 characters). */
export function generateTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

/** What the tokens table stores instead of the secret: sha256 of the whole secret, hex. */
export function hashTokenSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

const SECRET_SHAPE = /^svc_sk_[A-Za-z0-9_-]{43}$/;

/** Whether a string has the exact shape of a secret this service issues (no database look-up). */
export function isTokenSecretShape(value: string): boolean {
  return SECRET_SHAPE.test(value);
}
