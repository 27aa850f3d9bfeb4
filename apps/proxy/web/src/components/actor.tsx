// Who made a change, as people know them: the API labels every actor (`actor_label`, docs/auth.md
// "Actors"): an API token's actor (`token:<id>`) by the token's label, a person by their subject.
// The label comes with the row, so every role sees it (docs/ui.md "Actors").

/** The prefix the API gives the actor of a change made with an API token (docs/auth.md "Actors"). */
export const TOKEN_ACTOR_PREFIX = "token:";

/** The name to show for an actor: the API's label, and whether it names a token (then the raw actor goes on hover). */
export function actorName(actor: string, label: string | null | undefined): { name: string; token: boolean } {
  const token = actor.startsWith(TOKEN_ACTOR_PREFIX) && label != null && label !== actor;
  return { name: token ? label : (label ?? actor), token };
}

/** An actor as people know it: "ci deploys (token)" with the raw `token:<id>` on hover; nothing for none. */
export function Actor({ actor, label }: { actor: string | null | undefined; label: string | null | undefined }) {
  if (!actor) return null;
  const shown = actorName(actor, label);
  if (!shown.token) return <span className="actor">{shown.name}</span>;
  return (
    <span className="actor" title={actor} data-actor={actor}>
      {shown.name} <span className="muted">(token)</span>
    </span>
  );
}
