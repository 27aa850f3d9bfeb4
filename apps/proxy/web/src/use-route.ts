import { useEffect, useState } from "react";
import { parseRoute, type Route, routeHash } from "./route.js";

/** The mounted useRoute hooks: navigate() tells them at once. */
const listeners = new Set<() => void>();

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    let shown = window.location.hash;
    const onChange = () => {
      if (window.location.hash === shown) return; // navigate() told us already; this is its hashchange
      shown = window.location.hash;
      setRoute(parseRoute(shown));
    };
    listeners.add(onChange);
    window.addEventListener("hashchange", onChange);
    // A change between the first render and this effect.
    onChange();
    return () => {
      listeners.delete(onChange);
      window.removeEventListener("hashchange", onChange);
    };
  }, []);
  return route;
}

/**
 * Goes to `route`. The route state changes at once, not only on the `hashchange` event a task
 * later: a control that shows the route (the logs' flat radio, a select) would otherwise show
 * its old value after the click until that event, and a check of it right after the click
 * (a person's or a test's) would see the old value.
 */
export function navigate(route: Route, options: { replace?: boolean } = {}): void {
  // `replace`: state that changes per keystroke (a text filter) replaces the history entry
  // instead of adding one per character; replaceState fires no hashchange, the listeners are told here.
  if (options.replace) window.history.replaceState(window.history.state, "", routeHash(route));
  else window.location.hash = routeHash(route);
  for (const listener of listeners) listener();
}
