import type { RetryPolicy } from "./definition.js";
import { parseDuration } from "./duration.js";

export const DEFAULT_RETRY_DELAY = "1s";
export const DEFAULT_RETRY_FACTOR = 2;
const FIVE_MINUTES = 300_000;

/** `max_delay` defaults to the larger of 5 minutes and `delay`. */
export function defaultMaxDelay(delay: string): string {
  return parseDuration(delay) > FIVE_MINUTES ? delay : "5m";
}

/**
 * The wait before retry `n` (1-based): min(delay·factor^(n-1), max_delay), jittered down into
 * its upper half, i.e. uniformly in [cap/2, cap]. `random` returns [0, 1) like Math.random.
 */
export function retryDelayMs(policy: RetryPolicy, n: number, random: () => number): number {
  const delay = parseDuration(policy.delay);
  const max = parseDuration(policy.max_delay);
  const exponent = Math.max(0, n - 1);
  const raw = delay * policy.factor ** exponent;
  const cap = Number.isFinite(raw) ? Math.min(raw, max) : max;
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(cap / 2 + (cap / 2) * r);
}
