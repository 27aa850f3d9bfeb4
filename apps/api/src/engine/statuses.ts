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
