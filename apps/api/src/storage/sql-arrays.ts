import { sql } from "drizzle-orm";

// Arrays as one text literal parameter: both drivers pass it through unchanged.
export function sqlTextArray(values: readonly string[]) {
  return sql`${`{${values.map((v) => `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`).join(",")}}`}::text[]`;
}

export function sqlIntArray(values: readonly number[]) {
  return sql`${`{${values.map((v) => String(Math.trunc(v))).join(",")}}`}::int[]`;
}
