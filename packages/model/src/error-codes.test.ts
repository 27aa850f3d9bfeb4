import { describe, expect, it } from "vitest";
import type { Task } from "./definition.js";
import { codeMatches, findErrorRule } from "./error-codes.js";

describe("codeMatches", () => {
  it.each([
    ["http.500", "http.500", true],
    ["http.500", "http.502", false],
    ["http.5%", "http.503", true],
    ["http.5%", "http.404", false],
    ["pre.%", "pre.timeout", true],
    ["%", "anything.at_all", true],
    ["%", "", true],
    ["%.timeout", "http.timeout", true],
    ["%.timeout", "pre.timeout", true],
    ["%.timeout", "timeout", false],
    ["h%0", "http.500", true],
    ["http.%", "http", false],
    ["card_declined", "card_declined", true],
  ])("%s against %s → %s", (pattern, code, expected) => {
    expect(codeMatches(pattern, code)).toBe(expected);
  });

  it("treats regex metacharacters other than % literally", () => {
    expect(codeMatches("http.5%", "httpX5xx"), "a dot must not match any character").toBe(false);
    expect(codeMatches("a.b", "axb")).toBe(false);
  });
});

describe("findErrorRule", () => {
  const task: Task = {
    id: "t",
    switch: [],
    on_error: [
      { code: ["http.404"], goto: "end" },
      { code: ["http.5%", "pre.%"], retry: { retries: 3, delay: "1s", factor: 2, max_delay: "5m" } },
      { goto: "$t" },
    ],
  };

  it("returns the first rule whose pattern matches", () => {
    expect(findErrorRule(task, "http.404")).toBe(task.on_error[0]);
    expect(findErrorRule(task, "http.503")).toBe(task.on_error[1]);
    expect(findErrorRule(task, "pre.error")).toBe(task.on_error[1]);
  });

  it("falls back to the catch-all", () => {
    expect(findErrorRule(task, "output.invalid")).toBe(task.on_error[2]);
  });

  it("never matches engine.* codes, even with a catch-all", () => {
    expect(findErrorRule(task, "engine.expression")).toBeUndefined();
    expect(findErrorRule({ id: "x", switch: [], on_error: [{ code: ["%"] }] }, "engine.definition")).toBeUndefined();
  });

  it("returns undefined when nothing matches", () => {
    expect(findErrorRule({ id: "x", switch: [], on_error: [{ code: ["http.404"] }] }, "http.500")).toBeUndefined();
  });
});
