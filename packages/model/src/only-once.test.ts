import { describe, expect, it } from "vitest";
import type { ErrorRule, Task } from "./definition.js";
import { onlyOnceProblems } from "./only-once.js";

const retry = { retries: 2, delay: "1s", factor: 2, max_delay: "5m" };
const task = (on_error: ErrorRule[], only_once = true): Task => ({ id: "t", only_once, switch: [], on_error });

describe("onlyOnceProblems", () => {
  it("is empty for tasks that are not only_once", () => {
    expect(onlyOnceProblems(task([{ retry }], false))).toEqual([]);
  });

  it("ignores rules without retries", () => {
    expect(
      onlyOnceProblems(task([{ code: ["http.timeout"], goto: "end" }, { retry: { ...retry, retries: 0 } }])),
    ).toEqual([]);
  });

  it("names the rule or pattern that could double-execute", () => {
    expect(onlyOnceProblems(task([{ code: ["pre.%", "http.%"], retry }, { retry }]))).toEqual([
      { at: "on_error[0].code[1]", message: expect.stringContaining("http.timeout, http.disconnected") },
      { at: "on_error[1]", message: expect.stringContaining("catch-all") },
    ]);
  });

  it("accepts not_reached only with exact codes", () => {
    expect(onlyOnceProblems(task([{ code: ["http.429"], retry, not_reached: true }]))).toEqual([]);
    expect(onlyOnceProblems(task([{ code: ["http.42%"], retry, not_reached: true }]))).toHaveLength(1);
  });
});
