import type { Logger } from "@baton/log";
import { databaseErrorCode, isDatabaseUnavailable } from "../../storage/db-unavailable.js";
import { errorText } from "../../loggable-error.js";

/** Logs a failed pump step (claim round, renewal, chore): `what` names the step. */
export type FailureLog = (what: string, error: unknown) => void;

/**
 * While the database is unreachable every poll fails the same way: one warn line a second
 * for all of them, not an error line per poll (docs/engine.md, "When the database goes away").
 * Any other failure is an error line each time.
 */
export function createFailureLog(log: Logger): FailureLog {
  let lastUnavailableLog = Number.NEGATIVE_INFINITY;
  return function logFailure(what: string, error: unknown): void {
    if (!isDatabaseUnavailable(error)) {
      log.error(`${what} failed`, { error: errorText(error) });
      return;
    }
    if (performance.now() - lastUnavailableLog < 1_000) return;
    lastUnavailableLog = performance.now();
    log.warn(`${what} failed: the database is unreachable`, { code: databaseErrorCode(error) ?? null });
  };
}
