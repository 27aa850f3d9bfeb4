// A line diff by longest common subsequence: enough for definitions (hundreds of lines).

export interface DiffLine {
  kind: "same" | "added" | "removed";
  text: string;
  /** 1-based line number in the old text (absent for added lines). */
  oldLine?: number;
  /** 1-based line number in the new text (absent for removed lines). */
  newLine?: number;
}

/** The lines of `after` compared with `before`; removals come before additions within a change. */
export function diffLines(before: string[], after: string[]): DiffLine[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endOld = before.length;
  let endNew = after.length;
  while (endOld > start && endNew > start && before[endOld - 1] === after[endNew - 1]) {
    endOld--;
    endNew--;
  }
  const a = before.slice(start, endOld);
  const b = after.slice(start, endNew);
  const width = b.length + 1;
  // lcs[i*width+j] = length of the LCS of a[i..] and b[j..]
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  const out: DiffLine[] = [];
  for (let k = 0; k < start; k++) out.push({ kind: "same", text: before[k], oldLine: k + 1, newLine: k + 1 });
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ kind: "same", text: a[i], oldLine: start + i + 1, newLine: start + j + 1 });
      i++;
      j++;
    } else if (j >= b.length || (i < a.length && lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) {
      out.push({ kind: "removed", text: a[i], oldLine: start + i + 1 });
      i++;
    } else {
      out.push({ kind: "added", text: b[j], newLine: start + j + 1 });
      j++;
    }
  }
  for (let k = 0; k < before.length - endOld; k++) {
    out.push({ kind: "same", text: before[endOld + k], oldLine: endOld + k + 1, newLine: endNew + k + 1 });
  }
  return out;
}

/** Whether any line changed. */
export function hasChanges(diff: DiffLine[]): boolean {
  return diff.some((line) => line.kind !== "same");
}

/** A run of diff lines, `[start, end)` indexes into the diff. */
export interface DiffRange {
  start: number;
  end: number;
}

/** The changes: each maximal run of added and removed lines, in order. */
export function changeBlocks(diff: DiffLine[]): DiffRange[] {
  const blocks: DiffRange[] = [];
  for (let i = 0; i < diff.length; i++) {
    if (diff[i].kind === "same") continue;
    const start = i;
    while (i + 1 < diff.length && diff[i + 1].kind !== "same") i++;
    blocks.push({ start, end: i + 1 });
  }
  return blocks;
}

/** Unchanged lines kept on each side of a change. */
export const DIFF_CONTEXT = 3;
/** A run of unchanged lines shorter than this is shown rather than folded (a fold of 2 lines saves nothing). */
export const MIN_FOLD = 4;

/**
 * The diff cut into ranges to show and ranges to fold: unchanged lines further than `context`
 * from every change are folded when there are at least MIN_FOLD of them in a row. The ranges
 * cover the diff in order, without gaps; a diff without changes is one folded range.
 */
export function foldDiff(diff: DiffLine[], context = DIFF_CONTEXT): (DiffRange & { folded: boolean })[] {
  const out: (DiffRange & { folded: boolean })[] = [];
  const push = (start: number, end: number, folded: boolean) => {
    if (end <= start) return;
    const last = out.at(-1);
    if (last && last.folded === folded && last.end === start) last.end = end;
    else out.push({ start, end, folded });
  };
  let i = 0;
  while (i < diff.length) {
    if (diff[i].kind !== "same") {
      const start = i;
      while (i < diff.length && diff[i].kind !== "same") i++;
      push(start, i, false);
      continue;
    }
    const start = i;
    while (i < diff.length && diff[i].kind === "same") i++;
    const keepBefore = start > 0 ? context : 0; // after a change
    const keepAfter = i < diff.length ? context : 0; // before a change
    const hideStart = start + keepBefore;
    const hideEnd = i - keepAfter;
    if (hideEnd - hideStart < MIN_FOLD) {
      push(start, i, false);
    } else {
      push(start, hideStart, false);
      push(hideStart, hideEnd, true);
      push(hideEnd, i, false);
    }
  }
  return out;
}
