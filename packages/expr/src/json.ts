// Lossless JSON: numbers that a float64 cannot hold exactly (integers beyond 2^53, long
// decimal fractions) are kept as LosslessNumber so they survive input → state → output
// unchanged. Every place that reads or writes instance data (HTTP bodies, stored state,
// fetch responses) must go through parseJson/stringifyJson, never JSON.parse/stringify.
import { isLosslessNumber, isSafeNumber, LosslessNumber, parse, stringify } from "lossless-json";

export { isLosslessNumber, LosslessNumber };

export type Json = null | boolean | string | number | LosslessNumber | Json[] | { [key: string]: Json };

function parseNumber(text: string): number | LosslessNumber {
  return isSafeNumber(text) ? Number(text) : new LosslessNumber(text);
}

/**
 * Deeper nesting than this is refused before parsing: the parser recurses once per level and
 * overflowed its stack somewhere past 2,000 ("Maximum call stack size exceeded" was the whole
 * 400 a caller got). No value deeper than --limit-value-depth (128) is usable anyway.
 */
export const MAX_JSON_DEPTH = 1000;

/** Parses JSON text; throws SyntaxError with a position on malformed input or nesting past MAX_JSON_DEPTH. */
export function parseJson(text: string): Json {
  const tooDeep = jsonDepthPast(text, MAX_JSON_DEPTH);
  if (tooDeep !== undefined)
    throw new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep at position ${tooDeep}`);
  return parse(text, null, parseNumber) as Json;
}

/**
 * Where an array or object opens more than `max` levels deep (brackets in strings skipped), if
 * anywhere: one pass over the characters, no allocation, so an edge can refuse deep text
 * before any parser sees it.
 */
export function jsonDepthPast(text: string, max: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: to its closing quote, past escapes.
      for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return i;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

/**
 * parseJson for text this program wrote (stored definitions, stored state): such text has no
 * duplicate keys, which parseJson refuses and JSON.parse does not, so JSON.parse — native,
 * several times faster on large text — gives parseJson's value once the numbers a float64
 * cannot hold are put back as LosslessNumber. Nested past FAST_DEPTH, parseJson. Never for
 * text from outside (a request body): its duplicate keys must be refused.
 */
export function parseWrittenJson(text: string): Json {
  const scan = scanValidJson(text, false);
  if (scan === undefined) return parseJson(text);
  return scan.unsafe.length === 0 ? (JSON.parse(text) as Json) : withLosslessNumbers(text, scan.unsafe);
}

/** Deeper than this, parseJson's own answer (it recurses) decides. */
const FAST_DEPTH = 512;

/**
 * Exactly parseJson's value, or its error, at close to JSON.parse's cost: JSON.parse (native,
 * 10–20 times faster than parseJson on large text) checks the syntax, one pass over the
 * characters (scanValidJson) finds the numbers a float64 cannot hold and any object naming a
 * key twice, and the value is JSON.parse's with those numbers put back as LosslessNumber. Text
 * with a repeated key, or nested deeper than FAST_DEPTH, goes to parseJson itself, so every
 * refusal and its message stay parseJson's. For large text from outside, such as a request body.
 */
export function parseJsonFast(text: string): Json {
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch {
    return parseJson(text);
  }
  const scan = scanValidJson(text, true);
  if (scan === undefined) return parseJson(text);
  return scan.unsafe.length === 0 ? value : withLosslessNumbers(text, scan.unsafe);
}

/** A number token of valid JSON text: where it starts and ends. */
interface NumberToken {
  start: number;
  end: number;
}

/**
 * One pass over valid JSON text: the number tokens a float64 does not hold exactly, or
 * undefined when the fast path must not be taken (nesting past FAST_DEPTH, or — with
 * `checkKeys` — an object naming a key twice).
 */
function scanValidJson(text: string, checkKeys: boolean): { unsafe: NumberToken[] } | undefined {
  // Per open level: null for an array, else the keys seen so far in that object.
  const open: Array<string[] | Set<string> | null> = [];
  const unsafe: NumberToken[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++) {
        if (text.charCodeAt(i) === BACKSLASH) {
          escaped = true;
          i++;
        }
      }
      if (expectKey) {
        expectKey = false;
        if (!checkKeys) continue;
        const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
        const keys = open[open.length - 1]!;
        if (Array.isArray(keys)) {
          if (keys.includes(key)) return undefined;
          keys.push(key);
          if (keys.length > 8) open[open.length - 1] = new Set(keys);
        } else {
          if (keys.has(key)) return undefined;
          keys.add(key);
        }
      }
    } else if (c === OPEN_OBJECT) {
      if (open.push(checkKeys ? [] : null) > FAST_DEPTH) return undefined;
      expectKey = true;
    } else if (c === OPEN_ARRAY) {
      if (open.push(null) > FAST_DEPTH) return undefined;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      open.pop();
      expectKey = false;
    } else if (c === COMMA) {
      expectKey = isObject(open);
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      let exponent = false;
      for (; i + 1 < text.length; i++) {
        const d = text.charCodeAt(i + 1);
        if (d === 0x65 || d === 0x45) exponent = true;
        else if (!((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x2b || d === 0x2d)) break;
      }
      // At most 15 significant digits and no exponent: a float64 holds it exactly.
      if (i + 1 - start > 15 || exponent) {
        if (!isSafeNumber(text.slice(start, i + 1))) unsafe.push({ start, end: i + 1 });
      }
    }
  }
  return { unsafe };
}

/** Whether the innermost open level is an object (its entry is a key list, not null). */
function isObject(open: Array<string[] | Set<string> | null>): boolean {
  return open.length > 0 && open[open.length - 1] !== null;
}

/**
 * JSON.parse's value of `text` with each of `unsafe` as a LosslessNumber: the tokens are
 * written as strings carrying a random prefix (an escaped NUL and 16 hex digits, which the text
 * cannot guess), parsed natively, and the marked strings replaced.
 */
function withLosslessNumbers(text: string, unsafe: NumberToken[]): Json {
  const random = () =>
    Math.floor(Math.random() * 2 ** 32)
      .toString(16)
      .padStart(8, "0");
  let nonce: string;
  do nonce = `${random()}${random()}`;
  while (text.includes(nonce));
  const marker = `\\u0000${nonce}`;
  const parts: string[] = [];
  let at = 0;
  for (const { start, end } of unsafe) {
    parts.push(text.slice(at, start), `"${marker}${text.slice(start, end)}"`);
    at = end;
  }
  parts.push(text.slice(at));
  const prefix = JSON.parse(`"${marker}"`) as string;
  return restoreNumbers(JSON.parse(parts.join("")) as Json, prefix);
}

function restoreNumbers(value: Json, prefix: string): Json {
  if (typeof value === "string")
    return value.startsWith(prefix) ? new LosslessNumber(value.slice(prefix.length)) : value;
  if (value === null || typeof value !== "object" || isLosslessNumber(value)) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = restoreNumbers(value[i]!, prefix);
    return value;
  }
  for (const key of Object.keys(value)) {
    const item = value[key]!;
    const restored = restoreNumbers(item, prefix);
    // defineProperty, not assignment: an own "__proto__" key must stay a key.
    if (restored !== item)
      Object.defineProperty(value, key, { value: restored, writable: true, enumerable: true, configurable: true });
  }
  return value;
}

export function stringifyJson(value: unknown, indent?: number): string {
  // JSON.stringify writes the same text for a value without LosslessNumber (lossless-json
  // itself hands every string, number and boolean to it), several times faster; this runs on
  // every state, output and log line the engine writes.
  const out =
    indent === undefined && isPlainJson(value) ? JSON.stringify(value) : stringify(value as Json, undefined, indent);
  if (out === undefined) throw new TypeError("value is not representable as JSON");
  return out;
}

/** Only primitives, arrays and plain objects all the way down: no LosslessNumber, bigint or toJSON. */
function isPlainJson(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
    case "undefined":
      return true;
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (isLosslessNumber(value) || typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!isPlainJson(item)) return false;
    return true;
  }
  for (const key of Object.keys(value)) if (!isPlainJson((value as Record<string, unknown>)[key])) return false;
  return true;
}

/** A copy with every LosslessNumber turned into the nearest float64 (for ajv, which only knows `number`). */
export function toPlainJson(value: Json): unknown {
  if (isLosslessNumber(value)) return Number((value as LosslessNumber).value);
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setKey(out as { [k: string]: Json }, k, toPlainJson(v as Json) as Json);
    return out;
  }
  return value;
}

/**
 * Sets an own property, also for the key "__proto__": plain assignment would replace the
 * prototype, so a copy of parsed JSON would show the nested object's fields as inherited ones
 * and a validator and a handler would see different objects. Every copy of parsed JSON into a
 * fresh object goes through this.
 */
export function setKey(target: { [k: string]: Json }, key: string, value: Json): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
