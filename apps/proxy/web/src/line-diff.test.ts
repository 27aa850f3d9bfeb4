import { describe, expect, it } from "vitest";
import { changeBlocks, diffLines, foldDiff, hasChanges } from "./line-diff.js";

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

describe("changeBlocks and foldDiff", () => {
  const lines = (n: number, prefix = "l") => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

  it("finds each run of changed lines", () => {
    const before = lines(20);
    const after = [...before];
    after[4] = "changed 5";
    after.splice(15, 2);
    const diff = diffLines(before, after);
    expect(changeBlocks(diff).map((b) => diff.slice(b.start, b.end).map((l) => l.kind))).toEqual([
      ["removed", "added"],
      ["removed", "removed"],
    ]);
  });

  it("folds unchanged lines far from every change and keeps three lines of context around each", () => {
    const before = lines(400);
    const after = [...before];
    after[399] = "the last line changed";
    const diff = diffLines(before, after);
    const ranges = foldDiff(diff);
    expect(ranges).toEqual([
      { start: 0, end: 396, folded: true },
      { start: 396, end: 401, folded: false },
    ]);
    const shown = ranges.filter((r) => !r.folded).flatMap((r) => diff.slice(r.start, r.end).map((l) => l.text));
    expect(shown).toEqual(["l397", "l398", "l399", "l400", "the last line changed"]);
  });

  it("covers the whole diff in order, folding between two distant changes", () => {
    const before = lines(100);
    const after = [...before];
    after[10] = "x";
    after[80] = "y";
    const diff = diffLines(before, after);
    const ranges = foldDiff(diff);
    expect(ranges.map((r) => [r.start, r.end, r.folded])).toEqual([
      [0, 7, true],
      [7, 15, false], // 3 lines, removed and added line 11, 3 lines
      [15, 78, true],
      [78, 86, false], // 3 lines, removed and added line 81, 3 lines
      [86, 102, true],
    ]);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i].start).toBe(ranges[i - 1].end);
    expect(ranges.at(-1)?.end).toBe(diff.length);
  });

  it("shows a short unchanged run instead of folding it", () => {
    const before = lines(12);
    const after = [...before];
    after[0] = "a";
    after[11] = "b";
    // 10 unchanged lines between: 3 + 4 + 3, and 4 is a fold.
    expect(foldDiff(diffLines(before, after)).filter((r) => r.folded)).toHaveLength(1);
    const closer = [...before];
    closer[0] = "a";
    closer[9] = "b";
    // 8 unchanged lines between: 3 + 2 + 3, shown.
    expect(foldDiff(diffLines(before, closer)).every((r) => !r.folded)).toBe(true);
  });

  it("folds everything when nothing changed, and nothing for an empty diff", () => {
    expect(foldDiff(diffLines(lines(10), lines(10)))).toEqual([{ start: 0, end: 10, folded: true }]);
    expect(foldDiff([])).toEqual([]);
    expect(changeBlocks(diffLines(lines(10), lines(10)))).toEqual([]);
  });
});
