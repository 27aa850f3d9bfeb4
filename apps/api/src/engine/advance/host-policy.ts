/** `*.example.com` matches any subdomain of example.com (not example.com itself); other entries match exactly. */
export function hostMatches(entry: string, host: string): boolean {
  const e = entry.trim().toLowerCase();
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (e.startsWith("*.")) return h.endsWith(e.slice(1));
  return e.replace(/^\[|\]$/g, "") === h;
}

/** Why a fetch to `host` is refused by `--fetch-allow` / `--fetch-deny`, or undefined when it is allowed. */
export function hostRefusal(host: string, allow: readonly string[], deny: readonly string[]): string | undefined {
  const denied = deny.find((entry) => hostMatches(entry, host));
  if (denied !== undefined) return `host "${host}" is refused by --fetch-deny (entry "${denied}")`;
  if (allow.length > 0 && !allow.some((entry) => hostMatches(entry, host))) {
    return `host "${host}" is not in --fetch-allow (${allow.join(", ")})`;
  }
  return undefined;
}
