// Hash routes (`#/instances/<id>`): the proxy serves index.html only at `/`, so the path part
// of the URL never changes and deep links survive a reload without any server fallback.

export type Route =
  | { page: "instances"; search: string }
  /** `search`: the logs panel's level, mode and position (`log_level`, `flat`, `log_after`/`log_before`); absent when empty. */
  | { page: "instance"; id: string; search?: string }
  | { page: "definitions" }
  | { page: "process"; name: string }
  | { page: "version"; name: string; version: number }
  | { page: "compare"; name: string; from: number | null; to: number | null }
  | { page: "channels" }
  | { page: "schedules" }
  | { page: "events" }
  /** `search`: the tasklist's filters and position (`process`, `claimed`, `after`/`before`); absent when empty. */
  | { page: "external"; search?: string }
  /** One waiting external task, by the instance that waits on it (docs/ui.md "Tasklist"). */
  | { page: "task"; instance: string }
  | { page: "tokens" }
  | { page: "not-found"; hash: string };

function positiveInt(text: string | null): number | null {
  if (text === null || !/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && Number.isSafeInteger(n) ? n : null;
}

/** The route of a location hash (`#/…`); an empty hash is the instance list. */
export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, "");
  const [pathPart, query = ""] = raw.split("?", 2) as [string, string?];
  const parts = pathPart.split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  const [head, a, b] = parts;
  if (parts.length === 0 || (head === "instances" && parts.length === 1)) return { page: "instances", search: query };
  if (head === "instances" && parts.length === 2)
    return query ? { page: "instance", id: a, search: query } : { page: "instance", id: a };
  if (head === "definitions") {
    if (parts.length === 1) return { page: "definitions" };
    if (parts.length === 2) return { page: "process", name: a };
    if (parts.length === 3 && b === "compare")
      return { page: "compare", name: a, from: positiveInt(params.get("from")), to: positiveInt(params.get("to")) };
    const version = positiveInt(b);
    if (parts.length === 3 && version !== null) return { page: "version", name: a, version };
  }
  if (head === "external" && parts.length === 2) return { page: "task", instance: a };
  if (head === "external" && parts.length === 1)
    return query ? { page: "external", search: query } : { page: "external" };
  if (parts.length === 1 && (head === "channels" || head === "tokens" || head === "schedules" || head === "events"))
    return { page: head };
  return { page: "not-found", hash };
}

/**
 * `search` with `changes` applied; a null, undefined or empty value removes its key and every
 * other key is kept, so panels sharing one page's URL (logs, children) never drop each other's state.
 */
export function withParams(search: string, changes: Record<string, string | null | undefined>): string {
  const params = new URLSearchParams(search);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === undefined || value === "") params.delete(key);
    else params.set(key, value);
  }
  return params.toString();
}

/** The hash of a route; `parseRoute(routeHash(r))` gives `r` back. */
export function routeHash(route: Route): string {
  const seg = encodeURIComponent;
  switch (route.page) {
    case "instances":
      return route.search ? `#/instances?${route.search}` : "#/instances";
    case "instance":
      return `#/instances/${seg(route.id)}${route.search ? `?${route.search}` : ""}`;
    case "definitions":
      return "#/definitions";
    case "process":
      return `#/definitions/${seg(route.name)}`;
    case "version":
      return `#/definitions/${seg(route.name)}/${route.version}`;
    case "compare": {
      const q = new URLSearchParams();
      if (route.from !== null) q.set("from", String(route.from));
      if (route.to !== null) q.set("to", String(route.to));
      const s = q.toString();
      return `#/definitions/${seg(route.name)}/compare${s ? `?${s}` : ""}`;
    }
    case "external":
      return `#/external${route.search ? `?${route.search}` : ""}`;
    case "channels":
    case "schedules":
    case "events":
    case "tokens":
      return `#/${route.page}`;
    case "task":
      return `#/external/${seg(route.instance)}`;
    case "not-found":
      return route.hash;
  }
}
