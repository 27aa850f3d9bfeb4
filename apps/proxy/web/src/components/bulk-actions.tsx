// Bulk pause, resume, cancel and retry of the roots the list's filters select
// (POST /instances/bulk/{verb}, docs/api.md "Bulk verbs"), in two steps: a dry run that shows
// what would change, then the real call after "Yes". Nothing changes before "Yes".

import type { BulkBody, BulkResult } from "@baton/actions";
import { useEffect, useRef, useState } from "react";
import { call } from "../api.js";
import { type InstanceFilters, STATUSES, filtersToQuery } from "../instance-filters.js";
import { verbApplies } from "../permissions.js";
import { ErrorBox } from "./error-box.js";
import { Link } from "./link.js";

type Verb = "pause" | "resume" | "cancel" | "retry";

const ACTION = {
  pause: "bulkPauseInstances",
  resume: "bulkResumeInstances",
  cancel: "bulkCancelInstances",
  retry: "bulkRetryInstances",
} as const;
const LABEL: Record<Verb, string> = { pause: "Pause", resume: "Resume", cancel: "Cancel", retry: "Retry" };
/** What a root the verb applies to becomes (for the preview's sentence). */
const BECOMES: Record<Verb, string> = {
  pause: "paused (pausing while a task drains)",
  resume: "running again",
  cancel: "cancelled (cancelling while a task drains)",
  retry: "retried from the failed task",
};
/** The most roots one call takes (the API's bound, docs/api.md "Bulk verbs"). */
const CALL_LIMIT = 1000;
/** A preview stops counting past this many roots; the real call still takes them all. */
const PREVIEW_MAX_CALLS = 10;
/** Ids listed in the preview; the rest are counted. */
const SHOWN_IDS = 20;

interface Preview {
  verb: Verb;
  force: boolean;
  matched: string[];
  /** More roots matched than the preview counted. */
  more: boolean;
  /** The matched roots by status now: which the verb changes and which it leaves alone. */
  byStatus: { status: string; count: number }[];
}

/** The bulk body of the list's filters (bulk verbs act on roots: `children` never goes in). */
function bulkBody(filters: InstanceFilters): BulkBody {
  const { children: _children, ...query } = filtersToQuery(filters);
  return query as BulkBody;
}

async function runAll(verb: Verb, body: BulkBody & { force?: boolean }, maxCalls: number) {
  const total: BulkResult = { dry_run: body.dry_run === true, counts: {}, ids: {}, refused: [], next_cursor: null };
  let cursor: string | undefined;
  for (let calls = 0; calls < maxCalls; calls++) {
    const answer: BulkResult = await call(ACTION[verb], {
      body: { ...body, limit: CALL_LIMIT, ...(cursor ? { cursor } : {}) },
    });
    for (const [outcome, n] of Object.entries(answer.counts)) total.counts[outcome] = (total.counts[outcome] ?? 0) + n;
    for (const [outcome, ids] of Object.entries(answer.ids))
      total.ids[outcome] = [...(total.ids[outcome] ?? []), ...ids];
    total.refused.push(...answer.refused);
    total.next_cursor = answer.next_cursor;
    if (!answer.next_cursor) break;
    cursor = answer.next_cursor;
  }
  return total;
}

export function BulkActions({ filters, onChanged }: { filters: InstanceFilters; onChanged: () => void }) {
  const [verb, setVerb] = useState<Verb>("retry");
  const [force, setForce] = useState(false);
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [result, setResult] = useState<{ verb: Verb; answer: BulkResult } | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const previewRef = useRef<HTMLElement>(null);
  const resultRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (preview) previewRef.current?.focus();
  }, [preview]);
  useEffect(() => {
    if (result) resultRef.current?.focus();
  }, [result]);

  const reset = () => {
    setPreview(null);
    setResult(null);
    setError(undefined);
  };

  async function dryRun() {
    reset();
    if (filters.children) {
      setError(new Error("Bulk actions act on whole trees through their roots: untick Include children first."));
      return;
    }
    setBusy(true);
    try {
      const body = { ...bulkBody(filters), dry_run: true, ...(verb === "retry" && force ? { force } : {}) };
      const [answer, counts] = await Promise.all([
        runAll(verb, body, PREVIEW_MAX_CALLS),
        call("countInstances", { query: { ...filtersToQuery(filters), by: "status" } }),
      ]);
      setPreview({
        verb,
        force: verb === "retry" && force,
        matched: answer.ids.matched ?? [],
        more: answer.next_cursor !== null,
        byStatus: counts.groups.map((g) => ({ status: g.status ?? "", count: g.count })),
      });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  async function confirm(p: Preview) {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await runAll(p.verb, { ...bulkBody(filters), ...(p.force ? { force: true } : {}) }, Infinity);
      setPreview(null);
      setResult({ verb: p.verb, answer });
      onChanged();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  const changes = preview?.byStatus.filter((g) => verbApplies(preview.verb, g.status)) ?? [];
  const stays = preview?.byStatus.filter((g) => !verbApplies(preview.verb, g.status)) ?? [];
  const changing = changes.reduce((sum, g) => sum + g.count, 0);
  const order = (a: { status: string }, b: { status: string }) =>
    STATUSES.indexOf(a.status as never) - STATUSES.indexOf(b.status as never);

  return (
    <details className="bulk">
      <summary>Bulk action on every root these filters select</summary>
      <div className="filter-row">
        <label>
          Action
          <select
            value={verb}
            onChange={(e) => {
              setVerb(e.target.value as Verb);
              reset();
            }}
          >
            {(Object.keys(LABEL) as Verb[]).map((v) => (
              <option key={v} value={v}>
                {LABEL[v]}
              </option>
            ))}
          </select>
        </label>
        {verb === "retry" && (
          <label className="check">
            <input
              type="checkbox"
              checked={force}
              onChange={(e) => {
                setForce(e.target.checked);
                reset();
              }}
            />
            force (override the only_once protection)
          </label>
        )}
        <button type="button" disabled={busy} onClick={dryRun}>
          Preview
        </button>
      </div>
      {preview && (
        <section className="preview" ref={previewRef} tabIndex={-1} aria-label="Bulk preview">
          <p data-testid="bulk-preview">
            Dry run: <strong>{LABEL[preview.verb]}</strong> would take{" "}
            <strong>
              {preview.matched.length}
              {preview.more ? "+" : ""} root{preview.matched.length === 1 ? "" : "s"}
            </strong>
            {preview.more ? ` (more than ${preview.matched.length} match; all would be taken)` : ""}.
          </p>
          <ul>
            {changes.sort(order).map((g) => (
              <li key={g.status} data-change={g.status}>
                {g.count} {g.status} → {BECOMES[preview.verb]}
              </li>
            ))}
            {stays.sort(order).map((g) => (
              <li key={g.status} data-stays={g.status} className="muted">
                {g.count} {g.status} → {preview.verb === "retry" || preview.verb === "resume" ? "refused" : "unchanged"}{" "}
                (a {g.status} root is not {preview.verb === "retry" ? "retried" : `${preview.verb}d`})
              </li>
            ))}
          </ul>
          {preview.matched.length > 0 && (
            <details>
              <summary>The roots ({Math.min(SHOWN_IDS, preview.matched.length)} shown)</summary>
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
            <p>Nothing to {preview.verb}: no matching root is in a status this action changes.</p>
          ) : (
            <div className="actions">
              <button
                type="button"
                className={preview.verb === "cancel" ? "danger" : undefined}
                disabled={busy}
                onClick={() => confirm(preview)}
              >
                Yes, {preview.verb} {changing} root{changing === 1 ? "" : "s"}
              </button>
              <button type="button" onClick={reset}>
                Back
              </button>
            </div>
          )}
          <p className="muted">
            The action selects by these filters again when confirmed: a root that changed in between is taken as it is
            then.
          </p>
        </section>
      )}
      <div ref={resultRef} tabIndex={-1}>
        {result && (
          <div role="status" className="notice" data-testid="bulk-result">
            <p>
              {LABEL[result.verb]}:{" "}
              {Object.entries(result.answer.counts)
                .map(([outcome, n]) => `${n} ${outcome}`)
                .join(", ") || "no root matched"}
              .
            </p>
            {result.answer.refused.length > 0 && (
              <table>
                <caption>Refused</caption>
                <tbody>
                  {result.answer.refused.map((r) => (
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
        )}
        <ErrorBox error={error} />
      </div>
    </details>
  );
}
