export type InstanceStatus =
  | "running"
  | "pausing"
  | "paused"
  | "failing"
  | "cancelling"
  | "completed"
  | "failed"
  | "raised"
  | "cancelled";

export const LIVE_STATUSES: readonly InstanceStatus[] = ["running", "pausing", "paused", "failing", "cancelling"];
export const SETTLED_STATUSES: readonly InstanceStatus[] = ["completed", "failed", "raised", "cancelled"];

export function isLive(status: string): boolean {
  return (LIVE_STATUSES as readonly string[]).includes(status);
}

export function isSettled(status: string): boolean {
  return (SETTLED_STATUSES as readonly string[]).includes(status);
}

/** How long a claim holds an instance; renewed every LEASE_RENEW_MS while its advance runs. */
export const LEASE_MS = 10_000;
export const LEASE_RENEW_MS = 3_000;
/**
 * No action (a fetch, an advance and with it a spawn or an arming) starts unless the lease has
 * at least this long left in the holder's view, measured after the last database round trip:
 * it covers the clock skew between replicas and the time from the check to the request leaving
 * (docs/engine.md, "A lease is never acted on late"). Below LEASE_MS - LEASE_RENEW_MS, or a
 * lease kept fresh by renewals would fail it.
 */
export const LEASE_MARGIN_MS = 3_000;
