// parseWrittenJson in steps, for large text this program wrote (the largest stored definition
// is about 2.8 MB; parsing it at once would hold a caller's event loop 40–230 ms). Pure: the caller
// decides what to do between steps (apps/api awaits a turn of its event loop).
import { type Json, parseWrittenJson, setKey } from "./json.js";

/** About this many characters are parsed between two steps. */
export const JSON_STEP_CHARS = 65_536;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Where the next token of text[from, end) starts, or `end`: a string, or the punctuation that
 * delimits members (`{ } [ ] , :`); numbers and literals sit between.
 */
function nextToken(text: string, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    switch (text.charCodeAt(i)) {
      case 0x22: // "
      case 0x2c: // ,
      case 0x3a: // :
      case 0x5b: // [
      case 0x5d: // ]
      case 0x7b: // {
      case 0x7d: // }
        return i;
    }
  }
  return end;
}

/** Where the token at `at` ends: after the closing quote of a string (escapes skipped), else after its character. */
function tokenEnd(text: string, at: number): number {
  if (text.charCodeAt(at) !== QUOTE) return at + 1;
  for (let from = at + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote < 0) throw new NotWritten();
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The text is not what this program writes; the caller parses it whole for its exact error. */
class NotWritten extends Error {}

interface Budget {
  left: number;
  readonly step: number;
}

/**
 * A generator whose return value is exactly parseWrittenJson(text) — the same value (numbers a
 * float64 does not hold exactly as LosslessNumber, "__proto__" an ordinary key) or the same
 * SyntaxError — and which yields after about every `stepChars` characters parsed. An object or
 * array longer than `stepChars` is split into its members, each parsed on its own (and split
 * again when it too is longer), so no step parses much more than `stepChars` at once. Like
 * parseWrittenJson, only for text this program wrote: duplicate keys are not refused.
 */
export function* parseWrittenJsonInSteps(text: string, stepChars = JSON_STEP_CHARS): Generator<void, Json, void> {
  if (text.length <= stepChars) return parseWrittenJson(text);
  try {
    return yield* valueIn(text, 0, text.length, { left: stepChars, step: stepChars });
  } catch (error) {
    if (error instanceof NotWritten || error instanceof SyntaxError) return parseWrittenJson(text);
    throw error;
  }
}

function* spend(budget: Budget, chars: number): Generator<void, void, void> {
  budget.left -= chars;
  if (budget.left <= 0) {
    budget.left = budget.step;
    yield;
  }
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** The value written in text[start, end). */
function* valueIn(text: string, start: number, end: number, budget: Budget): Generator<void, Json, void> {
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  const open = text[start];
  const close = open === "{" ? "}" : open === "[" ? "]" : undefined;
  if (end - start <= budget.step || close === undefined) {
    const value = parseWrittenJson(text.slice(start, end));
    yield* spend(budget, end - start);
    return value;
  }
  if (text[end - 1] !== close) throw new NotWritten();
  const members = yield* membersOf(text, start, end, open === "{", budget);
  if (open === "[") {
    const items: Json[] = [];
    for (const m of members) items.push(yield* valueIn(text, m.valueStart, m.valueEnd, budget));
    return items;
  }
  const object: { [key: string]: Json } = {};
  for (const m of members) {
    const key = JSON.parse(text.slice(m.keyStart, m.keyEnd)) as string;
    setKey(object, key, yield* valueIn(text, m.valueStart, m.valueEnd, budget));
  }
  return object;
}

interface Member {
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
}

/** The members of the object or array text[start, end) (its brackets included), by position. */
function* membersOf(
  text: string,
  start: number,
  end: number,
  isObject: boolean,
  budget: Budget,
): Generator<void, Member[], void> {
  const members: Member[] = [];
  let depth = 0;
  // Where the member being read starts (after `{`, `[` or a `,`), its key and its value.
  let memberStart = start + 1;
  let key: [number, number] | undefined;
  let valueStart = isObject ? -1 : start + 1;
  let scanned = start + 1;
  for (let at = nextToken(text, start + 1, end); at < end; at = nextToken(text, scanned, end)) {
    const token = text[at]!;
    const after = tokenEnd(text, at);
    yield* spend(budget, after - scanned);
    scanned = after;
    if (depth > 0) {
      if (token === "{" || token === "[") depth++;
      else if (token === "}" || token === "]") depth--;
      continue;
    }
    if (isObject && valueStart < 0) {
      // Before the key's colon: only the key string, then `:` (or the `}` of an empty object).
      if (token === ":" && key !== undefined) valueStart = at + 1;
      else if (token === '"' && key === undefined && text.slice(memberStart, at).trim() === "") key = [at, after];
      else if (at === end - 1 && members.length === 0 && key === undefined && text.slice(memberStart, at).trim() === "")
        memberStart = end;
      else throw new NotWritten();
      continue;
    }
    if (token === "{" || token === "[") depth++;
    else if (token === "," || at === end - 1) {
      if (at === end - 1 && token !== (isObject ? "}" : "]")) throw new NotWritten();
      const empty = text.slice(valueStart, at).trim() === "";
      // `[]` alone is an empty array; an empty value anywhere else is not JSON.
      if (!(empty && !isObject && token !== "," && members.length === 0)) {
        if (empty) throw new NotWritten();
        members.push({ keyStart: key?.[0] ?? -1, keyEnd: key?.[1] ?? -1, valueStart, valueEnd: at });
      }
      memberStart = at + 1;
      key = undefined;
      valueStart = isObject ? -1 : at + 1;
    } else if (token === "}" || token === "]" || token === ":") throw new NotWritten();
  }
  if (depth !== 0 || memberStart !== end) throw new NotWritten();
  return members;
}
