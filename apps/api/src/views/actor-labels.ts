import { inArray } from "drizzle-orm";
import type { Db } from "../storage/db.js";
import { tokens } from "../storage/schema/tokens.js";

// `actor_label` beside every `actor` a view shows (docs/auth.md "Actors"): a token's actor
// (`token:<id>`) is labelled with the token's admin-chosen label, anyone else's with the actor
// itself (a JWT's `sub`). Labels are read once per response, for every token actor on it; the
// token's secret and hash are never selected.

/** The prefix of an API token's actor (auth/token-authentication.ts). */
const TOKEN_ACTOR = "token:";

/** A string actor has a string label; a null actor (the engine, `--auth none`) a null one. */
export interface ActorLabel {
  (actor: string): string;
  (actor: string | null): string | null;
}

/** One lookup of the labels of every token among `actors`; none when there is no token actor. */
export async function actorLabels(db: Db, actors: Iterable<string | null | undefined>): Promise<ActorLabel> {
  const ids = new Set<string>();
  for (const actor of actors) if (actor?.startsWith(TOKEN_ACTOR)) ids.add(actor.slice(TOKEN_ACTOR.length));
  const labels = new Map<string, string>();
  if (ids.size > 0) {
    const rows = await db
      .select({ id: tokens.id, label: tokens.label })
      .from(tokens)
      .where(inArray(tokens.id, [...ids]));
    for (const row of rows) labels.set(row.id, row.label);
  }
  // A token actor whose token row is gone keeps its raw form as its label.
  function label(actor: string): string;
  function label(actor: string | null): string | null;
  function label(actor: string | null): string | null {
    if (actor === null || !actor.startsWith(TOKEN_ACTOR)) return actor;
    return labels.get(actor.slice(TOKEN_ACTOR.length)) ?? actor;
  }
  return label;
}

/** `view` with `actor_label` when it has an `actor` field (null for a null actor). */
export function withActorLabel<T extends { actor?: string | null }>(
  view: T,
  label: ActorLabel,
): T & { actor_label?: Exclude<T["actor"], undefined> } {
  return view.actor === undefined
    ? view
    : { ...view, actor_label: label(view.actor) as Exclude<T["actor"], undefined> };
}
