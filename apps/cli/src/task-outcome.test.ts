import { describe, expect, it } from "vitest";
import { taskOutcome } from "./task-outcome.js";

const run = (code: number | null, stdout: string, stderr = "") => ({ code, stdout, stderr, aborted: false });

describe("taskOutcome", () => {
  it("reads exit 0 as a JSON result, empty stdout as null", () => {
    expect(taskOutcome(run(0, '{"ok": true}\n'))).toEqual({ kind: "result", result: { ok: true } });
    expect(taskOutcome(run(0, "  \n"))).toEqual({ kind: "result", result: null });
  });

  it("reads exit 2 as an error outcome, keeping only its declared fields", () => {
    expect(taskOutcome(run(2, '{"code": "nope", "message": "m", "data": {"a": 1}, "extra": 1}'))).toEqual({
      kind: "error",
      error: { code: "nope", message: "m", data: { a: 1 } },
    });
  });

  it("releases on any other exit or a signal, quoting the last stderr line", () => {
    expect(taskOutcome(run(1, "", "first\nlast words\n"))).toEqual({
      kind: "release",
      reason: "the command exited 1: last words",
    });
    expect(taskOutcome(run(null, ""))).toEqual({ kind: "release", reason: "the command was killed by a signal" });
  });
});
