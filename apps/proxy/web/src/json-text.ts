// Pretty JSON for people. The API client parses numbers losslessly: integers beyond 2^53 and
// decimals arrive as LosslessNumber objects, which JSON.stringify would print as objects.

function isLosslessNumber(value: unknown): value is { value: string } {
  return (
    typeof value === "object" && value !== null && (value as { isLosslessNumber?: unknown }).isLosslessNumber === true
  );
}

/** The JSON text of a value, indented by two spaces, with exact numbers printed as their digits. */
export function jsonText(value: unknown, indent = "  ", depth = 0): string {
  if (value === undefined) return "undefined";
  if (isLosslessNumber(value)) return value.value;
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const pad = indent.repeat(depth + 1);
  const close = indent.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((item) => pad + jsonText(item, indent, depth + 1)).join(",\n")}\n${close}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${jsonText(v, indent, depth + 1)}`).join(",\n")}\n${close}}`;
}

/** A short one-line rendering of a scalar or a compact object (for table cells). */
export function jsonInline(value: unknown): string {
  return jsonText(value, "").replace(/\n/g, " ");
}
