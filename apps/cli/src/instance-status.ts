// What the CLI itself decides about statuses; the lists of statuses, phases and log levels are
// the registry's (@baton/actions INSTANCE_STATUSES, INSTANCE_PHASES, LOG_LEVELS).

/** Statuses an instance never leaves by itself: `run --wait` and `logs --follow` stop there. */
export const SETTLED_STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "raised", "cancelled"]);
