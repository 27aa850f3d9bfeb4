import { type Json, stringifyJson } from "./json.js";
export { setKey } from "./json.js";
import { DEFAULT_EVAL_LIMITS, type EvalBudget, numberChars, step, stepFor } from "./budget.js";
import { compareNumbers, isJsonNumber, numberText, shortNumberText } from "./numbers.js";

export type ValueKind = "null" | "boolean" | "string" | "number" | "array" | "object";

export function kindOf(value: Json): ValueKind {
  if (value === null) return "null";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "string") return "string";
  if (isJsonNumber(value)) return "number";
  if (Array.isArray(value)) return "array";
  return "object";
}

/** `a string "abc"`, `the number 3`, `null`, `an object` — for runtime error messages. */
export function describeValue(value: Json): string {
  const kind = kindOf(value);
  switch (kind) {
    case "null":
      return "null";
    case "boolean":
      return `the boolean ${value}`;
    case "number":
      return `the number ${shortNumberText(value as number)}`;
    case "string": {
      const s = value as string;
      return `the string ${JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s)}`;
    }
    case "array":
      return "an array";
    default:
      return "an object";
  }
}

/**
 * Deep equality by value; numbers compare by decimal value (1 == 1.0), key order is irrelevant.
 * With a `budget`, every value compared is a step and strings are charged by their length
 * (stepFor), so comparing large values repeatedly runs out of steps, not of time.
 */
export function deepEqual(a: Json, b: Json, budget?: EvalBudget): boolean {
  if (a === b) return true;
  if (budget !== undefined) {
    step(budget);
    if (typeof a === "string" && typeof b === "string") stepFor(budget, Math.min(a.length, b.length));
    else stepFor(budget, numberChars(a) + numberChars(b));
  }
  if (isJsonNumber(a)) return isJsonNumber(b) && compareNumbers(a, b) === 0;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object" || isJsonNumber(b)) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i], budget)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  if (budget !== undefined) stepFor(budget, aKeys.length);
  if (aKeys.length !== Object.keys(b).length) return false;
  for (const key of aKeys) {
    if (!Object.hasOwn(b, key) || !deepEqual(a[key], b[key], budget)) return false;
  }
  return true;
}

/**
 * How `${ }` renders a value: strings as is, numbers in decimal (exponent form past
 * `maxDigits` digits, see numberText), others as JSON. Throws ExprLimitError for a number
 * that cannot be rendered within `maxDigits`.
 */
export function renderValue(value: Json, maxDigits: number = DEFAULT_EVAL_LIMITS.maxNumberDigits): string {
  if (typeof value === "string") return value;
  if (isJsonNumber(value)) return numberText(value, maxDigits);
  if (value === null || typeof value === "boolean") return String(value);
  return stringifyJson(value);
}
