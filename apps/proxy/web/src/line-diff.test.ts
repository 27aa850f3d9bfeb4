import { describe, expect, it } from "vitest";
import { diffLines, hasChanges } from "./line-diff.js";

const compact = (lines: ReturnType<typeof diffLines>) =>
  lines.map((l) => `${l.kind === "same" ? " " : l.kind === "added" ? "+" : "-"}${l.text}`);

describe("diffLines", () => {
  it("marks nothing when both sides are equal", () => {
    const diff = diffLines(["a", "b"], ["a", "b"]);
    expect(compact(diff)).toEqual([" a", " b"]);
    expect(hasChanges(diff)).toBe(false);
  });

  it("shows a changed line as a removal followed by an addition", () => {
    expect(compact(diffLines(["a", "b", "c"], ["a", "B", "c"]))).toEqual([" a", "-b", "+B", " c"]);
  });

  it("finds insertions and deletions in the middle with correct line numbers", () => {
    const diff = diffLines(["x", "a", "b", "c", "y"], ["x", "a", "n", "c", "y", "z"]);
    expect(compact(diff)).toEqual([" x", " a", "-b", "+n", " c", " y", "+z"]);
    const added = diff.find((l) => l.text === "z");
    expect(added).toMatchObject({ kind: "added", newLine: 6 });
    expect(added?.oldLine, "an added line has no old line number").toBeUndefined();
    expect(diff.find((l) => l.text === "y")).toMatchObject({ oldLine: 5, newLine: 5 });
  });

  it("handles empty sides", () => {
    expect(compact(diffLines([], ["a"]))).toEqual(["+a"]);
    expect(compact(diffLines(["a"], []))).toEqual(["-a"]);
    expect(diffLines([], [])).toEqual([]);
  });

  it("keeps the longest common run instead of rewriting everything", () => {
    const diff = diffLines(["1", "2", "3", "4"], ["0", "1", "2", "3"]);
    expect(compact(diff)).toEqual(["+0", " 1", " 2", " 3", "-4"]);
  });

  it("numbers shared suffix lines on both sides after an unequal-length change", () => {
    const diff = diffLines(["a", "tail"], ["b", "c", "tail"]);
    expect(diff.at(-1)).toEqual({ kind: "same", text: "tail", oldLine: 2, newLine: 3 });
  });
});
