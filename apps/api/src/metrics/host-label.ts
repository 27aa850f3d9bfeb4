/** Distinct fetch hosts that get a series of their own; later ones share `other` (docs/metrics.md). */
export const MAX_HOST_LABELS = 50;
/** Distinct process names that get a series of their own; later ones share `other` (docs/metrics.md). */
export const MAX_PROCESS_LABELS = 50;

/**
 * The `process` label of the advance metrics: the same rule as the host label, the first
 * MAX_PROCESS_LABELS distinct process names this replica advances keep their name, every later
 * one is `other`, so registering many processes cannot grow the series without bound.
 */
export function boundedProcessLabel(max = MAX_PROCESS_LABELS): (process: string) => string {
  const known = new Set<string>();
  return (name) => {
    if (known.has(name)) return name;
    if (known.size >= max) return "other";
    known.add(name);
    return name;
  };
}

/**
 * The `host` label of the fetch metrics, from the called URL's `host` (`URL.host`: lower case,
 * with a non-default port). A definition computes its URLs, so the set of hosts is open: the
 * first MAX_HOST_LABELS distinct hosts this process calls keep their name, every later one is
 * `other`, and an empty host is `invalid`. That bounds the series per replica whatever the
 * definitions do.
 */
export function boundedHostLabel(max = MAX_HOST_LABELS): (host: string) => string {
  const known = new Set<string>();
  return (raw) => {
    if (known.has(raw)) return raw;
    const host = raw.toLowerCase();
    if (host === "") return "invalid";
    if (known.has(host)) return host;
    if (known.size >= max) return "other";
    known.add(host);
    return host;
  };
}
