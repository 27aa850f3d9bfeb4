import type { ErrorRule, Task } from "./definition.js";

/** Codes produced by the engine for its own faults: never caught by on_error (docs/language.md "Error codes"). */
export function isEngineFault(code: string): boolean {
  return code.startsWith("engine.");
}

/**
 * `%` is the only wildcard and matches any run of characters (also none); every other
 * character, `_` and `.` included, matches itself. Linear in |pattern| + |code|: no regular
 * expression (a `%a%a…%b` pattern made a backtracking one take minutes, docs/limits.md).
 *
 * The pieces between `%`s are found left to right, each at its leftmost occurrence after the
 * previous one: taking the leftmost never loses a match, so nothing is ever retried. Each
 * search is Knuth–Morris–Pratt, so the code is scanned once in total.
 */
export function codeMatches(pattern: string, code: string): boolean {
  const first = pattern.indexOf("%");
  if (first === -1) return pattern === code;
  const last = pattern.lastIndexOf("%");
  const head = pattern.slice(0, first);
  const tail = pattern.slice(last + 1);
  if (head.length + tail.length > code.length || !code.startsWith(head) || !code.endsWith(tail)) return false;
  let at = head.length;
  const end = code.length - tail.length;
  for (const piece of pattern.slice(first + 1, last).split("%")) {
    if (piece === "") continue;
    const found = indexOfWithin(code, piece, at, end);
    if (found === -1) return false;
    at = found + piece.length;
  }
  return true;
}

/** First index ≥ from where `needle` occurs entirely before `end`, or -1 (KMP: O(end − from + |needle|)). */
function indexOfWithin(text: string, needle: string, from: number, end: number): number {
  const fail = new Int32Array(needle.length);
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle[i] !== needle[k]) k = fail[k - 1];
    if (needle[i] === needle[k]) k++;
    fail[i] = k;
  }
  for (let i = from, k = 0; i < end; i++) {
    while (k > 0 && text[i] !== needle[k]) k = fail[k - 1];
    if (text[i] === needle[k]) k++;
    if (k === needle.length) return i - needle.length + 1;
  }
  return -1;
}

/** The first rule whose pattern matches (a rule without `code` matches everything); engine.* codes never match. */
export function findErrorRule(task: Task, code: string): ErrorRule | undefined {
  if (isEngineFault(code)) return undefined;
  return task.on_error.find((rule) => rule.code === undefined || rule.code.some((p) => codeMatches(p, code)));
}
