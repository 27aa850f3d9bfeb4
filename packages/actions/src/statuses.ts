// The instance statuses and phases the API reports: the one list the registry, the server's
// engine (apps/api engine/statuses.ts says what each means), the CLI and the UI all use.

export const INSTANCE_STATUSES = [
  "running",
  "pausing",
  "paused",
  "failing",
  "cancelling",
  "completed",
  "failed",
  "raised",
  "cancelled",
] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

export const INSTANCE_PHASES = ["children", "collecting", "external"] as const;
export type InstancePhase = (typeof INSTANCE_PHASES)[number];

/** Why a running instance waits for flow control (docs/flow-control.md): a slot or a start permit. */
export const FLOW_WAIT_REASONS = ["concurrency", "rate_limit"] as const;
export type FlowWaitReason = (typeof FLOW_WAIT_REASONS)[number];
