import { createHmac, randomBytes } from "node:crypto";

// The Standard Webhooks signature (docs/events.md "Signatures"): the receiver's libraries
// (`standardwebhooks` and its ports) verify `webhook-signature` over
// `<webhook-id>.<webhook-timestamp>.<body>` with HMAC-SHA256 under the secret's bytes, the
// base64 after `whsec_`. Changing the signed content or the header names breaks every receiver.

export const SECRET_PREFIX = "whsec_";
/** Bytes of a secret the server issues; a secret given by the caller has at least MIN_SECRET_BYTES. */
const ISSUED_SECRET_BYTES = 32;
export const MIN_SECRET_BYTES = 24;
export const MAX_SECRET_BYTES = 64;

/** A fresh signing secret, `whsec_` + base64 of 32 random bytes. */
export function issueSecret(): string {
  return SECRET_PREFIX + randomBytes(ISSUED_SECRET_BYTES).toString("base64");
}

/** The key bytes of a `whsec_…` secret, or the reason it is not one. */
export function secretBytes(secret: string): Buffer | string {
  if (!secret.startsWith(SECRET_PREFIX)) return `a signing secret starts with "${SECRET_PREFIX}"`;
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0)
    return `a signing secret is "${SECRET_PREFIX}" followed by standard base64`;
  const bytes = Buffer.from(b64, "base64");
  if (bytes.length < MIN_SECRET_BYTES || bytes.length > MAX_SECRET_BYTES)
    return `a signing secret holds ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes; this one holds ${bytes.length}`;
  return bytes;
}

/** `v1,<base64 HMAC>` of one secret. */
export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = secretBytes(secret);
  if (typeof key === "string") throw new Error(`stored signing secret unusable: ${key}`);
  return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;
}

/**
 * The three Standard Webhooks headers. Every secret in `secrets` signs (space-separated
 * signatures): during a rotation's overlap window a receiver holding either secret verifies.
 */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": secrets.map((s) => signatureOf(s, id, timestampSeconds, body)).join(" "),
  };
}
