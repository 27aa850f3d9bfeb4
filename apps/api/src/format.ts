// How values are written out for people: API timestamps, shortened text, redacted URLs.

/** Unix ms → ISO 8601 UTC, the form of every timestamp in API responses. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : iso(ms);
}

/**
 * `text` cut to at most `max` characters plus a marker: "…" (`ellipsis`, for sentences built
 * from response bodies) or "… (N more chars)" (`count`, for stored log text). NUL characters are
 * dropped first: PostgreSQL text cannot hold them, and they reach messages from response bodies.
 */
export function truncate(text: string, max: number, marker: "ellipsis" | "count" = "ellipsis"): string {
  const clean = text.includes("\u0000") ? text.replace(/\u0000/g, "") : text;
  if (clean.length <= max) return clean;
  return marker === "ellipsis"
    ? `${clean.slice(0, max)}…`
    : `${clean.slice(0, max)}… (${clean.length - max} more chars)`;
}

/** A URL with its password replaced by ***, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
}
