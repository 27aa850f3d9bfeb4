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
  const tooDeep = positionPastDepth(text, MAX_JSON_DEPTH);
  if (tooDeep !== undefined)
    throw new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep at position ${tooDeep}`);
  return parse(text, null, parseNumber) as Json;
}

/** Where an array or object opens more than `max` levels deep (brackets in strings skipped), if anywhere. */
function positionPastDepth(text: string, max: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: to its closing quote, past escapes.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

/** Every run of digits that may be a JSON number (in strings too: a false hit only costs speed). */
const NUMBER_LIKE = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * parseJson for text this program wrote (stored definitions, stored state): such text has no
 * duplicate keys, which parseJson refuses and JSON.parse does not, so whenever every number in
 * it is one a float64 holds exactly the two give the same value, and JSON.parse — native,
 * several times faster on large text — is used. Otherwise (or on any doubt) parseJson. Never
 * for text from outside (a request body): its duplicate keys must be refused.
 */
export function parseWrittenJson(text: string): Json {
  return hasUnsafeNumber(text) ? parseJson(text) : (JSON.parse(text) as Json);
}

/** String tokens (a key when a colon follows) and brackets: enough of JSON to see each object's keys. */
const KEYS_AND_BRACKETS = /"(?:[^"\\]|\\.)*"(\s*:)?|[{}[\]]/g;
/** Deeper than this, parseJson's own answer (it recurses) decides. */
const FAST_DEPTH = 512;

/**
 * Exactly parseJson's value, or its error: JSON.parse (native, 10–20 times faster on large
 * text) where that gives the same value — every number a float64 holds exactly, no object with
 * a key twice (parseJson refuses one), nesting no deeper than FAST_DEPTH (parseJson recurses
 * and fails where JSON.parse does not) — and parseJson itself on any doubt, so every refusal and
 * its message stay parseJson's. For large text from outside, such as a request body.
 */
export function parseJsonFast(text: string): Json {
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch {
    return parseJson(text);
  }
  return hasUnsafeNumber(text) || !plainKeys(text) ? parseJson(text) : value;
}

function hasUnsafeNumber(text: string): boolean {
  for (const [token] of text.matchAll(NUMBER_LIKE)) {
    // At most 15 significant digits and no exponent: a float64 holds it exactly.
    if ((token.length > 15 || /[eE]/.test(token)) && !isSafeNumber(token)) return true;
  }
  return false;
}

/** Valid JSON text whose objects each name a key once, nested at most FAST_DEPTH deep. */
function plainKeys(text: string): boolean {
  const open: Array<Set<string> | null> = [];
  for (const [token, colon] of text.matchAll(KEYS_AND_BRACKETS)) {
    if (token === "{" || token === "[") {
      if (open.push(token === "{" ? new Set() : null) > FAST_DEPTH) return false;
    } else if (token === "}" || token === "]") open.pop();
    else if (colon !== undefined) {
      const raw = token.slice(0, token.lastIndexOf('"') + 1);
      const key = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      const keys = open[open.length - 1];
      if (!keys || keys.has(key)) return false;
      keys.add(key);
    }
  }
  return true;
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
