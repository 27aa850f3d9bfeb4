import { sql } from "drizzle-orm";

// Arrays as one text literal parameter: both drivers pass it through unchanged.
export function sqlTextArray(values: readonly string[]) {
  return sql`${textArray(values)}::text[]`;
}

export function sqlIntArray(values: readonly number[]) {
  return sql`${intArray(values)}::int[]`;
}

/** The array literal of `values` for a `$n::text[]` parameter of a fixed statement text (null → NULL). */
export function textArray(values: readonly (string | null)[]): string {
  return `{${values.map((v) => (v === null ? "NULL" : `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`)).join(",")}}`;
}

/** The array literal of `values` for a `$n::int[]` parameter. */
export function intArray(values: readonly number[]): string {
  return `{${values.map((v) => String(Math.trunc(v))).join(",")}}`;
}
