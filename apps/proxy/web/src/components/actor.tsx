// Who made a change, as people know them: an API token's actor (`token:<id>`) is shown by the
// token's label. Labels come from GET /tokens, which needs `admin`; without it the raw actor is
// shown (docs/ui.md "Actors").

import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from "react";
import { call } from "../api.js";
import { can, type Permissions } from "../permissions.js";

/** The prefix the API gives the actor of a change made with an API token (docs/auth.md "Actors"). */
export const TOKEN_ACTOR_PREFIX = "token:";

interface TokenLabels {
  /** Token id → label; empty until read, and for people who may not list tokens. */
  labels: ReadonlyMap<string, string>;
  /** Read the labels again (after a token is created). */
  reload: () => void;
}

const TokenLabelsContext = createContext<TokenLabels>({ labels: new Map(), reload: () => {} });

/** Reads the token labels once per page load, when the person may list tokens. */
export function TokenLabelsProvider({ permissions, children }: { permissions: Permissions; children: ReactNode }) {
  const allowed = can(permissions, "admin");
  const [labels, setLabels] = useState<ReadonlyMap<string, string>>(new Map());
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: tick is the reload trigger
  useEffect(() => {
    if (!allowed) return;
    const controller = new AbortController();
    call("listTokens", { signal: controller.signal }).then(
      (page) => setLabels(new Map(page.items.map((token) => [token.id, token.label]))),
      // Labels are a courtesy: an actor whose label cannot be read is shown as the API names it.
      () => {},
    );
    return () => controller.abort();
  }, [allowed, tick]);
  return <TokenLabelsContext.Provider value={{ labels, reload }}>{children}</TokenLabelsContext.Provider>;
}

export function useTokenLabels(): TokenLabels {
  return useContext(TokenLabelsContext);
}

/** The name to show for an actor: a token's label when known, else the actor itself. */
export function actorName(actor: string, labels: ReadonlyMap<string, string>): { name: string; token: boolean } {
  if (!actor.startsWith(TOKEN_ACTOR_PREFIX)) return { name: actor, token: false };
  const label = labels.get(actor.slice(TOKEN_ACTOR_PREFIX.length));
  return label === undefined ? { name: actor, token: false } : { name: label, token: true };
}

/** An actor as people know it: "ci deploys (token)" with the raw `token:<id>` on hover; nothing for none. */
export function Actor({ actor }: { actor: string | null | undefined }) {
  const { labels } = useTokenLabels();
  if (!actor) return null;
  const shown = actorName(actor, labels);
  if (!shown.token) return <span className="actor">{actor}</span>;
  return (
    <span className="actor" title={actor} data-actor={actor}>
      {shown.name} <span className="muted">(token)</span>
    </span>
  );
}
