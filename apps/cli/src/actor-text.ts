// Who made a change, as the human output names it (docs/cli.md "Actors"). `--json` prints the
// API's `actor` and `actor_label` untouched.

/** The API's `actor_label` with the raw actor beside it when they differ (a token: `ci deploys <token:<id>>`, as a commit author is shown); "" for none. */
export function actorText(actor: string | null | undefined, label: string | null | undefined): string {
  if (!actor) return "";
  return label && label !== actor ? `${label} <${actor}>` : actor;
}
