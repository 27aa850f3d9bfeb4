import { createHash, createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { secretBytes } from "../events/signing.js";

// The four verifiers of an inbound hook (docs/events.md "Verifiers"). Each answers the
// sender's delivery id when the request is authentic and fresh, and only `false` otherwise: the
// sender is told nothing about why (docs/events.md "Refusals"). Every comparison of a
// signature or secret is constant-time over equal-length buffers.

export interface VerifierSettings {
  verifier: string;
  /** HMAC verifiers: the key text; `header`: the sha256 hex of the shared value. */
  secret: string;
  header: string | null;
  idHeader: string | null;
  toleranceMs: number;
}

export type Verdict = { ok: true; deliveryId: string | null } | { ok: false };

const NO: Verdict = { ok: false };

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function fresh(timestampSeconds: string | null, nowMs: number, toleranceMs: number): boolean {
  if (timestampSeconds === null || !/^\d{1,12}$/.test(timestampSeconds)) return false;
  return Math.abs(nowMs - Number(timestampSeconds) * 1000) <= toleranceMs;
}

/** The sha256 of a `header` hook's shared value: what is stored, and what a request's value is compared as. */
export function sharedValueHash(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/**
 * Verifies one request. `deliveryId` null: the scheme names none here (Stripe's is the body's
 * `id`; a `header` hook without `id_header`), the caller takes it from the body or makes one.
 */
export function verifyRequest(hook: VerifierSettings, headers: Headers, body: string, nowMs: number): Verdict {
  switch (hook.verifier) {
    case "standard_webhooks": {
      const id = headers.get("webhook-id");
      const timestamp = headers.get("webhook-timestamp");
      const signatures = headers.get("webhook-signature");
      const key = secretBytes(hook.secret);
      if (id === null || signatures === null || typeof key === "string") return NO;
      if (!fresh(timestamp, nowMs, hook.toleranceMs)) return NO;
      const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
      const match = signatures
        .split(" ")
        .some((part) => part.startsWith("v1,") && sameBytes(Buffer.from(part.slice(3), "base64"), expected));
      return match ? { ok: true, deliveryId: id } : NO;
    }
    case "github": {
      const signature = headers.get("x-hub-signature-256");
      const id = headers.get("x-github-delivery");
      if (signature === null || id === null || !signature.startsWith("sha256=")) return NO;
      const expected = createHmac("sha256", hook.secret).update(body).digest();
      return sameBytes(Buffer.from(signature.slice(7), "hex"), expected) ? { ok: true, deliveryId: id } : NO;
    }
    case "stripe": {
      const header = headers.get("stripe-signature");
      if (header === null) return NO;
      const parts = header.split(",").map((p) => p.split("=", 2) as [string, string | undefined]);
      const timestamp = parts.find(([k]) => k === "t")?.[1] ?? null;
      if (!fresh(timestamp, nowMs, hook.toleranceMs)) return NO;
      const expected = createHmac("sha256", hook.secret).update(`${timestamp}.${body}`).digest();
      const match = parts.some(([k, v]) => k === "v1" && v !== undefined && sameBytes(Buffer.from(v, "hex"), expected));
      return match ? { ok: true, deliveryId: null } : NO;
    }
    case "header": {
      const given = hook.header === null ? null : headers.get(hook.header);
      if (given === null) return NO;
      const ok = sameBytes(Buffer.from(sharedValueHash(given), "hex"), Buffer.from(hook.secret, "hex"));
      if (!ok) return NO;
      const id = hook.idHeader === null ? null : headers.get(hook.idHeader);
      return { ok: true, deliveryId: id ?? (hook.idHeader === null ? randomUUID() : null) };
    }
    default:
      return NO;
  }
}
