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

/** Parses JSON text; throws SyntaxError with a position on malformed input. */
export function parseJson(text: string): Json {
  return parse(text, null, parseNumber) as Json;
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
  for (const [token] of text.matchAll(NUMBER_LIKE)) {
    // At most 15 significant digits and no exponent: a float64 holds it exactly.
    if ((token.length > 15 || /[eE]/.test(token)) && !isSafeNumber(token)) return parseJson(text);
  }
  return JSON.parse(text) as Json;
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
