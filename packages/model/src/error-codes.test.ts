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

  it("agrees with a reference matcher on every short pattern and code over a small alphabet", () => {
    // Reference: the textbook dynamic program (quadratic, obviously correct).
    const reference = (p: string, c: string): boolean => {
      let row = [true, ...Array.from(c, () => false)];
      for (const ch of p) {
        const next = [ch === "%" && row[0]];
        for (let j = 1; j <= c.length; j++)
          next[j] = ch === "%" ? row[j] || next[j - 1] : row[j - 1] && c[j - 1] === ch;
        row = next;
      }
      return row[c.length];
    };
    const words = (alphabet: string, max: number): string[] => {
      let out = [""];
      let layer = [""];
      for (let n = 0; n < max; n++) {
        layer = layer.flatMap((w) => Array.from(alphabet, (ch) => w + ch));
        out = out.concat(layer);
      }
      return out;
    };
    const codes = words("ab.", 4);
    for (const pattern of words("ab%", 4))
      for (const code of codes)
        expect(codeMatches(pattern, code), `${pattern} / ${code}`).toBe(reference(pattern, code));
  });

  it("matches a pattern that made a backtracking regex take minutes, in one pass", () => {
    // %a%a…%a%b against a long run of a's: each piece is found once, left to right. A
    // backtracking matcher retries every split (exponential); this returns before a test timeout.
    const pattern = `${"%a".repeat(2000)}%b`;
    expect(codeMatches(pattern, "a".repeat(100_000))).toBe(false);
    expect(codeMatches(pattern, `${"a".repeat(100_000)}b`)).toBe(true);
    expect(codeMatches(`${"%a".repeat(2000)}%`, `${pattern}`), "subsumption: % absorbs the other's %").toBe(true);
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
