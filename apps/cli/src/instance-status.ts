import type { InstanceStatus } from "@baton/actions";

export const INSTANCE_STATUSES: readonly InstanceStatus[] = [
  "running",
  "pausing",
  "paused",
  "failing",
  "cancelling",
  "completed",
  "failed",
  "raised",
  "cancelled",
];

export const SETTLED_STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "raised", "cancelled"]);

export const INSTANCE_PHASES = ["children", "collecting", "external"] as const;

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
