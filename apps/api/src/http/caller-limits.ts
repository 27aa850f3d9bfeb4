import type { Context } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import { ApiError } from "./api-error.js";

// Per-caller fairness (docs/limits.md "Callers"): requests in flight at once per client address,
// counted before authentication, and per credential, counted once it is known. A flood from one
// place is refused with 429 at the cost of a map lookup, before a token is looked up in the
// database or a body is read, while everyone else — and the probes, which are never counted — is
// served. In-flight counts, not rates: they need no clock, release themselves when the answer is
// made, and a map entry lives only while its caller has a request open.

export interface CallerLimits {
  /** Requests one client address may have in flight at once (`--limit-requests-per-address`). */
  perAddress: number;
  /** Requests one credential may have in flight at once (`--limit-requests-per-credential`). */
  perCredential: number;
}

export interface CallerGate {
  /** Counts a request from the client of `c` until the returned release runs; throws a 429 past the limit. */
  enterAddress(c: Context): () => void;
  /** The same per credential: the actor (`token:<id>`, or a JWT's `sub`: one person through the sign-in proxy). */
  enterCredential(actor: string): () => void;
}

/** Retry-After of a 429: a request in flight usually ends well within a second. */
const RETRY_AFTER_SECONDS = 1;

export function createCallerGate(limits: CallerLimits): CallerGate {
  const byAddress = new Map<string, number>();
  const byCredential = new Map<string, number>();
  const enter = (counts: Map<string, number>, key: string, limit: number, refusal: () => ApiError) => {
    const n = counts.get(key) ?? 0;
    if (n >= limit) throw refusal();
    counts.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (counts.get(key) ?? 1) - 1;
      if (left > 0) counts.set(key, left);
      else counts.delete(key);
    };
  };
  return {
    enterAddress: (c) =>
      enter(byAddress, clientAddress(c), limits.perAddress, () =>
        tooMany(
          `this client address already has ${limits.perAddress} requests in progress (--limit-requests-per-address, docs/limits.md "Callers"); wait for an answer before sending more`,
        ),
      ),
    enterCredential: (actor) =>
      enter(byCredential, actor, limits.perCredential, () =>
        tooMany(
          `this credential already has ${limits.perCredential} requests in progress (--limit-requests-per-credential, docs/limits.md "Callers"); wait for an answer before sending more`,
        ),
      ),
  };
}

function tooMany(message: string): ApiError {
  return new ApiError("unavailable", message, {
    status: 429,
    headers: { "Retry-After": String(RETRY_AFTER_SECONDS) },
  });
}

/** The TCP peer; every request of a server without a socket (none in production) shares one key. */
function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}
