// PostgreSQL text cannot hold U+0000 (PGlite neither), and jsonb refuses the escape `\u0000`:
// one such character in any text column a write carries fails the whole write, and the
// instance behind it would retry that write forever (docs/limits.md#poison-instances). Every
// plain text value an engine write stores passes through here; JSON text columns (state,
// output, log data) are unaffected because JSON text writes U+0000 as the six characters `\u0000`.

/** U+0000 replaced by U+FFFD (the replacement character). */
export function storableText(text: string): string {
  return text.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text;
}

// `\u0000` as JSON.stringify writes U+0000, unless its backslash is itself escaped (an even run
// of backslashes before it): a string holding the six characters `\u0000` stays as it is.
const ESCAPED_NUL = /(?<=(?:^|[^\\])(?:\\\\)*)\\u0000/g;

/**
 * JSON text for a `::jsonb` parameter, every string in it storable (keys too). Plain
 * JSON.stringify, then a scan: a replacer function would take JSON.stringify off its fast path,
 * and this runs on every write batch.
 */
export function storableJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes("\\u0000") ? text.replace(ESCAPED_NUL, "\\ufffd") : text;
}
