import { isLosslessNumber, type LosslessNumber } from "@baton/expr";

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !isLosslessNumber(v);
}

/** How a value reads in a message: `a string`, `an array`, `null`… */
export function describeKind(v: unknown): string {
  if (v === null) return "null";
  if (v === undefined) return "nothing";
  if (Array.isArray(v)) return "an array";
  // Only numbers a float64 cannot hold exactly arrive as LosslessNumber: name the digits.
  if (isLosslessNumber(v)) return `the number ${(v as LosslessNumber).value}`;
  switch (typeof v) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "object":
      return "an object";
    default:
      return typeof v;
  }
}

export function isNonNegativeInteger(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}
