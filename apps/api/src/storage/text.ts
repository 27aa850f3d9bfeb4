// PostgreSQL text cannot hold U+0000 (PGlite neither), and jsonb refuses the escape `\u0000`:
// one such character in any text column a write carries fails the whole write, and the
// instance behind it would retry that write forever (docs/limits.md#poison-instances). Every
// plain text value an engine write stores passes through here; JSON text columns (state,
// output, log data) are unaffected because JSON text writes U+0000 as the six characters `\u0000`.

/**
 * U+0000 replaced by U+FFFD (the replacement character). A lone surrogate needs nothing here:
 * both drivers encode text as UTF-8, which writes it as U+FFFD.
 */
export function storableText(text: string): string {
  return text.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text;
}

// The escapes PostgreSQL's json refuses, as JSON.stringify writes them: `\u0000`, and a lone
// surrogate `\ud800`–`\udfff` (JSON.stringify writes a valid pair as its characters, so every
// such escape it writes is lone; PostgreSQL answers "invalid input syntax for type json", and a
// worker's error message holding one made its resolve answer 500). Unless the backslash is itself
// escaped (an even run of backslashes before it): a string holding the six characters `\u0000`
// stays as it is.
const REFUSED_ESCAPE = /(?<=(?:^|[^\\])(?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g;

/**
 * JSON text for a `::jsonb` parameter, every string in it storable (keys too): U+0000 and lone
 * surrogates become U+FFFD. Plain JSON.stringify, then a scan: a replacer function would take
 * JSON.stringify off its fast path, and this runs on every write batch.
 */
export function storableJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes("\\u0000") || text.includes("\\ud") ? text.replace(REFUSED_ESCAPE, "\\ufffd") : text;
}
