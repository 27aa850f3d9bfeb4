/** Distinct fetch hosts that get a series of their own; later ones share `other` (docs/metrics.md). */
export const MAX_HOST_LABELS = 50;

/**
 * The `host` label of the fetch metrics. A definition computes its URLs, so the set of hosts is
 * open: the first MAX_HOST_LABELS distinct hosts this process calls keep their name (with a
 * non-default port), every later one is `other`, and a URL that does not parse is `invalid`.
 * That bounds the series per replica whatever the definitions do.
 */
export function boundedHostLabel(max = MAX_HOST_LABELS): (url: string | undefined) => string {
  const known = new Set<string>();
  return (url) => {
    let host: string;
    try {
      host = new URL(url ?? "").host.toLowerCase();
    } catch {
      return "invalid";
    }
    if (host === "") return "invalid";
    if (known.has(host)) return host;
    if (known.size >= max) return "other";
    known.add(host);
    return host;
  };
}
