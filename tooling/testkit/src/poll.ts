import type { client } from "./http.js";

// One home for polling in tests. CI runs the whole suite on a loaded 2-core machine, so a
// deadline here is a hang guard, never a statement about speed: keep it generous, and wait for
// a state, never for a time.

/** Generous on purpose: reaching it means the state never came, not that it came slowly. */
export const POLL_TIMEOUT_MS = 60_000;

/**
 * Polls `probe` until it returns something other than undefined and returns that; throws
 * naming `what` after `timeoutMs`. A probe that throws fails the wait (catch inside the probe
 * to poll through expected errors, e.g. a server that is restarting).
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = POLL_TIMEOUT_MS,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Statuses an instance never leaves by itself (docs/engine.md). */
export const SETTLED_STATUSES = ["completed", "failed", "raised", "cancelled"];

/** GET /api/instances/{id} once the instance has settled (polled while the server's pump runs). */
export function settled(
  api: ReturnType<typeof client>,
  id: string,
  timeoutMs = POLL_TIMEOUT_MS,
): Promise<Record<string, any>> {
  return until(
    `instance ${id} to settle`,
    async () => {
      const view = (await api.get(`/api/instances/${id}`)).body;
      return SETTLED_STATUSES.includes(view?.status) ? view : undefined;
    },
    timeoutMs,
    100,
  );
}
