// What the bulk panel (bulk-actions.tsx) shows: the dry run's preview with its Yes/Back, and the
// real call's outcome. The preview's cap is stated exactly (docs/ui.md "Instances"): the dry
// run lists at most PREVIEW_MAX_ROOTS roots, the status counts are exact, and Yes takes every
// root that matches when it runs.

import { type BulkResult, INSTANCE_STATUSES } from "@baton/actions";
import { type Ref, useEffect, useRef } from "react";
import { BULK_LABEL, type BulkChoice, type BulkVerb, PREVIEW_MAX_ROOTS } from "../bulk.js";
import { verbApplies } from "../permissions.js";
import { Link } from "./link.js";

/** Ids listed in the preview; the rest are counted. */
const SHOWN_IDS = 20;

export interface Preview {
  choice: BulkChoice;
  /** The roots the dry run listed: all of them, or the first PREVIEW_MAX_ROOTS in id order. */
  matched: string[];
  /** The dry run stopped at PREVIEW_MAX_ROOTS with more roots left. */
  more: boolean;
  /** The matching roots by status now (exact, from the counts): which the verb changes and which it leaves alone. */
  byStatus: { status: string; count: number }[];
}

/** What a root the verb applies to becomes (for the preview's sentence). */
function becomes(choice: BulkChoice): string {
  switch (choice.verb) {
    case "pause":
      return "paused (pausing while a task drains)";
    case "resume":
      return "running again";
    case "cancel":
      return "cancelled (cancelling while a task drains)";
    case "retry":
      return "retried from the failed task";
    case "upgrade":
      return `moved to v${choice.to} (refused where a blocking change concerns the task it sits on)`;
    case "reset":
      return `back on task ${choice.toTask} with the state of its first entry (refused where it cannot go back there)`;
  }
}

const done = (verb: BulkVerb) =>
  verb === "retry" ? "retried" : verb === "upgrade" ? "upgraded" : verb === "reset" ? "reset" : `${verb}d`;
const order = (a: { status: string }, b: { status: string }) =>
  INSTANCE_STATUSES.indexOf(a.status as never) - INSTANCE_STATUSES.indexOf(b.status as never);
const thousands = (n: number) => n.toLocaleString("en-US");

export function BulkPreview({
  preview,
  busy,
  onConfirm,
  onBack,
}: {
  preview: Preview;
  busy: boolean;
  onConfirm: () => void;
  onBack: () => void;
}) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const { verb } = preview.choice;
  const changes = preview.byStatus.filter((g) => verbApplies(verb, g.status)).sort(order);
  const stays = preview.byStatus.filter((g) => !verbApplies(verb, g.status)).sort(order);
  const changing = changes.reduce((sum, g) => sum + g.count, 0);
  const total = preview.byStatus.reduce((sum, g) => sum + g.count, 0);
  const n = preview.matched.length;
  return (
    <section className="preview" ref={ref as Ref<HTMLElement>} tabIndex={-1} aria-label="Bulk preview">
      <p data-testid="bulk-preview">
        Dry run: <strong>{BULK_LABEL[verb]}</strong>
        {verb === "upgrade" ? ` v${preview.choice.from} → v${preview.choice.to}` : ""} would take{" "}
        <strong>
          {preview.more ? `more than ${thousands(n)}` : thousands(n)} root{n === 1 ? "" : "s"}
        </strong>
        .
      </p>
      {preview.more && (
        <p data-testid="bulk-cap">
          The dry run lists at most the first {thousands(PREVIEW_MAX_ROOTS)} matching roots (in id order) and stopped
          there; the counts by status below are exact: {thousands(total)} root{total === 1 ? "" : "s"} match now. Yes
          takes every root that matches when it runs, not only the first {thousands(PREVIEW_MAX_ROOTS)}.
        </p>
      )}
      <ul>
        {changes.map((g) => (
          <li key={g.status} data-change={g.status}>
            {thousands(g.count)} {g.status} → {becomes(preview.choice)}
          </li>
        ))}
        {stays.map((g) => (
          <li key={g.status} data-stays={g.status} className="muted">
            {thousands(g.count)} {g.status} →{" "}
            {verb === "retry" || verb === "resume" || verb === "upgrade" || verb === "reset" ? "refused" : "unchanged"}{" "}
            (a {g.status} root is not {done(verb)})
          </li>
        ))}
      </ul>
      {n > 0 && (
        <details>
          <summary>The roots ({Math.min(SHOWN_IDS, n)} shown)</summary>
          <ul className="id-list">
            {preview.matched.slice(0, SHOWN_IDS).map((id) => (
              <li key={id}>
                <Link to={{ page: "instance", id }} className="mono">
                  {id}
                </Link>
              </li>
            ))}
          </ul>
        </details>
      )}
      {changing === 0 ? (
        <p>Nothing to {verb}: no matching root is in a status this action changes.</p>
      ) : (
        <div className="actions">
          <button
            type="button"
            className={verb === "cancel" ? "danger" : undefined}
            disabled={busy}
            onClick={onConfirm}
          >
            Yes, {verb} {thousands(changing)} root{changing === 1 ? "" : "s"}
          </button>
          <button type="button" onClick={onBack}>
            Back
          </button>
        </div>
      )}
      <p className="muted">
        The action selects by these filters again when confirmed: a root that changed in between is taken as it is then.
      </p>
    </section>
  );
}

export function BulkOutcome({ verb, answer }: { verb: BulkVerb; answer: BulkResult }) {
  return (
    <div role="status" className="notice" data-testid="bulk-result">
      <p>
        {BULK_LABEL[verb]}:{" "}
        {Object.entries(answer.counts)
          .map(([outcome, n]) => `${n} ${outcome}`)
          .join(", ") || "no root matched"}
        .
      </p>
      {answer.refused.length > 0 && (
        <table>
          <caption>Refused</caption>
          <tbody>
            {answer.refused.map((r) => (
              <tr key={r.id}>
                <td>
                  <Link to={{ page: "instance", id: r.id }} className="mono">
                    {r.id}
                  </Link>
                </td>
                <td>{r.code}</td>
                <td>{r.error}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
