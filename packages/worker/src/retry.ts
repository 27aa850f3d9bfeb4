// Retrying the worker's own calls (docs/worker.md "Failures and retries").
import { ApiError, ConnectionError } from "@baton/actions";

/**
 * Worth trying again: the server is unreachable, timed out, overloaded or failed. A 4xx (bad token,
 * missing permission, a body the server refuses) and 501 will answer the same next time.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof ConnectionError) return true;
  if (error instanceof ApiError) return error.status === 429 || (error.status >= 500 && error.status !== 501);
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
}

/** Exponential backoff with full jitter: attempt 1 waits up to `baseMs`, doubling to `capMs`. */
export function backoffMs(attempt: number, baseMs: number, capMs: number): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Runs `call` up to `attempts` times while it fails transiently, backing off between attempts;
 * the last error (or the first permanent one) is thrown. `onRetry` hears each failed attempt.
 */
export async function withRetry<T>(
  call: () => Promise<T>,
  options: { attempts: number; baseMs: number; capMs: number; onRetry?: (error: unknown, attempt: number) => void },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= options.attempts || !isTransient(error)) throw error;
      options.onRetry?.(error, attempt);
      await sleep(backoffMs(attempt, options.baseMs, options.capMs));
    }
  }
}
