import type { InstanceStatus } from "@baton/actions";

// Each instance status and phase: what it means and who moves a row into it. The lists
// themselves are @baton/actions INSTANCE_STATUSES and INSTANCE_PHASES, the ones the API, the
// CLI and the UI share; docs/engine.md describes the same from the outside; the SQL of pump/,
// trees/ and external/ must agree.
//
// - running: has work: due (wake_at ≤ now) for the pump to claim, or parked (a phase, or
//   wake_at later/null). Set by start, resume, retry, an advance.
// - pausing: a pause landed while a worker held the lease: the worker's write lands the row
//   `paused` (trees/lifecycle.ts, pump/commit.ts).
// - paused: stopped at a task boundary by an operator; timers keep their wake_at. Set by pause,
//   or by the write that ends a `pausing` advance.
// - failing: a child failed while siblings still run: the parent waits for them, then fails
//   (pump/commit.ts).
// - cancelling: a cancel landed while a worker held the lease: the worker's write lands the row
//   `cancelled`.
// - completed: ran its last task; `output` is set. Set by an advance.
// - failed: ended with an error code no on_error rule caught (or a child failed). Set by an
//   advance; retry revives it.
// - raised: ended with an authored `raise`: an outcome the definition declares, not a fault.
//   Set by an advance.
// - cancelled: stopped for good by an operator (or with its cancelled parent). Set by cancel or
//   by the write that ends a `cancelling` advance.
//
// The phase: what a `running` row waits for when it is not simply due: `external` (a worker's
// answer, external/outcomes.ts; timers still fire), `children` (spawned children to settle;
// wake_at null), `collecting` (the last child settled: due now, the next advance collects their
// outcomes). Null otherwise. Set by the advance's write and by the child that settles last
// (pump/commit.ts).

export type { InstancePhase, InstanceStatus } from "@baton/actions";

/** Still has a future: an operator verb or the pump may move it. */
export const LIVE_STATUSES: readonly InstanceStatus[] = ["running", "pausing", "paused", "failing", "cancelling"];
/** Final: only retry (from `failed`) ever moves it again. */
export const SETTLED_STATUSES: readonly InstanceStatus[] = ["completed", "failed", "raised", "cancelled"];

export function isLive(status: string): boolean {
  return (LIVE_STATUSES as readonly string[]).includes(status);
}

export function isSettled(status: string): boolean {
  return (SETTLED_STATUSES as readonly string[]).includes(status);
}

/** How long the pump's lease holds an instance; renewed every LEASE_RENEW_MS while its advance runs. */
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
