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
