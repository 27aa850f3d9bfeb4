import type { Task } from "@baton/model";
import { describe, expect, it } from "vitest";
import { routeError } from "./error-route.js";

const task = (on_error: Task["on_error"], only_once = false): Task => ({
  id: "t",
  switch: [],
  on_error,
  only_once,
  action: { type: "fetch", url: "http://x", method: "post" },
});
const retry = (retries: number) => ({ retries, delay: "1s", factor: 2, max_delay: "5m" });
const half = () => 0;

describe("routeError", () => {
  it("retries while the shared budget lasts, then takes the rule's goto", () => {
    const t = task([{ code: ["http.5%"], retry: retry(2), goto: "$fallback" }]);
    expect(routeError(t, "http.503", 0, half)).toEqual({ kind: "retry", rule: t.on_error[0], attempt: 1, waitMs: 500 });
    expect(routeError(t, "http.500", 1, half)).toMatchObject({ kind: "retry", attempt: 2, waitMs: 1000 });
    expect(routeError(t, "http.500", 2, half)).toEqual({ kind: "goto", target: "$fallback" });
  });

  it("fails when no rule matches, and when a matching rule only retried", () => {
    const t = task([{ code: ["http.404"], retry: retry(1) }]);
    expect(routeError(t, "http.500", 0, half)).toEqual({ kind: "fail" });
    expect(routeError(t, "http.404", 1, half)).toEqual({ kind: "fail" });
  });

  it("uses the first matching rule, in order", () => {
    const t = task([
      { code: ["http.4%"], raise: { code: "client_error", message: "bad request" } },
      { panic: { code: "anything", message: "else" } },
    ]);
    expect(routeError(t, "http.422", 0, half)).toEqual({
      kind: "raise",
      error: { code: "client_error", message: "bad request" },
    });
    expect(routeError(t, "output.parse", 0, half)).toEqual({
      kind: "panic",
      error: { code: "anything", message: "else" },
    });
  });

  it("never catches engine.* codes", () => {
    expect(routeError(task([{ goto: "$x" }]), "engine.expression", 0, half)).toEqual({ kind: "fail" });
  });

  it("never retries only_once.interrupted, and on an only_once task retries only pre.* or not_reached codes", () => {
    const t = task(
      [
        { code: ["only_once.interrupted"], retry: retry(3), goto: "$check" },
        { code: ["pre.%"], retry: retry(3) },
        { code: ["http.409"], retry: retry(3), not_reached: true },
        { code: ["http.timeout"], retry: retry(3) },
      ],
      true,
    );
    expect(routeError(t, "only_once.interrupted", 0, half)).toEqual({ kind: "goto", target: "$check" });
    expect(routeError(t, "pre.timeout", 0, half).kind).toBe("retry");
    expect(routeError(t, "http.409", 0, half).kind).toBe("retry");
    expect(routeError(t, "http.timeout", 0, half), "the call may have taken effect").toEqual({ kind: "fail" });
  });
});
