import { type Json, parseJson } from "@baton/expr";
import type { ErrorOutcome } from "@baton/actions";
import type { CommandResult } from "./task-command.js";

/** What a worker does with a finished command (docs/cli.md "worker"). */
export type TaskOutcome =
  | { kind: "result"; result: Json }
  | { kind: "error"; error: ErrorOutcome }
  | { kind: "release"; reason: string };

/** Exit code by which a command ends the task with an error outcome printed on stdout. */
export const ERROR_OUTCOME_EXIT = 2;

/**
 * Exit 0: stdout is the result (JSON; empty means null). Exit 2: stdout is an error outcome
 * `{"code": "...", "message"?: "...", "data"?: ...}`. Anything else: release the task so it can
 * be claimed again.
 */
export function taskOutcome(run: CommandResult): TaskOutcome {
  const text = run.stdout.trim();
  if (run.code === 0) {
    if (text === "") return { kind: "result", result: null };
    try {
      return { kind: "result", result: parseJson(text) };
    } catch (error) {
      return {
        kind: "release",
        reason: `the command exited 0 but its stdout is not JSON (${(error as Error).message})`,
      };
    }
  }
  if (run.code === ERROR_OUTCOME_EXIT) {
    let value: Json;
    try {
      value = parseJson(text);
    } catch {
      return {
        kind: "release",
        reason: `the command exited ${ERROR_OUTCOME_EXIT} but its stdout is not a JSON error outcome like {"code": "out_of_stock"}`,
      };
    }
    const outcome = value as { code?: unknown; message?: unknown; data?: Json };
    if (value === null || typeof value !== "object" || Array.isArray(value) || typeof outcome.code !== "string") {
      return {
        kind: "release",
        reason: `the command exited ${ERROR_OUTCOME_EXIT} but its stdout has no string "code" (expected {"code": "...", "message"?: "...", "data"?: ...})`,
      };
    }
    const error: ErrorOutcome = { code: outcome.code };
    if (typeof outcome.message === "string") error.message = outcome.message;
    if (outcome.data !== undefined) error.data = outcome.data;
    return { kind: "error", error };
  }
  const lastError = run.stderr.trim().split("\n").pop();
  const how = run.code === null ? "was killed by a signal" : `exited ${run.code}`;
  return { kind: "release", reason: `the command ${how}${lastError ? `: ${lastError}` : ""}` };
}
