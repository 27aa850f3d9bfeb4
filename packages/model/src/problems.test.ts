import { describe, expect, it } from "vitest";
import { formatProblems, joinPath } from "./problems.js";

describe("formatProblems", () => {
  it("writes one sentence per problem with process, path and task", () => {
    const text = formatProblems([
      { process: "p", task: "charge", path: "tasks[2].on_error[0]", message: 'unknown field "retires"' },
      { process: "p", path: "name", message: "bad" },
      { path: "", message: "expected a definition object" },
      { process: "p", path: "", message: 'unknown field "version"' },
    ]);
    expect(text.split("\n")).toEqual([
      'process "p": tasks[2].on_error[0] (task "charge"): unknown field "retires"',
      'process "p": name: bad',
      "expected a definition object",
      'process "p": unknown field "version"',
    ]);
  });
});

describe("joinPath", () => {
  it("uses dots for identifiers, brackets for indexes and other keys", () => {
    expect(joinPath("", "tasks")).toBe("tasks");
    expect(joinPath("tasks", 2)).toBe("tasks[2]");
    expect(joinPath("headers", "X-Api-Key")).toBe('headers["X-Api-Key"]');
    expect(joinPath("responses", "200")).toBe('responses["200"]');
  });
});
