// Bulk pause, resume, cancel, retry, upgrade and reset of the roots the list's filters select
// (POST /instances/bulk/{verb}, docs/api.md "Bulk verbs"), in two steps: a dry run that shows
// what would change, then the real call after "Yes". Nothing changes before "Yes". The panel's
// state (open, verb, options, preview shown) lives in the list's URL: `bulk=<verb>`,
// `bulk_force`, `bulk_from`/`bulk_to`, `bulk_to_task`, `bulk_paused`, `bulk_preview` (docs/ui.md "State in the URL").

import { BULK_VERBS, type BulkResult, type CompatReport, type DefinitionSummary, type Page } from "@baton/actions";
import { useEffect, useRef, useState } from "react";
import { call } from "../api.js";
import {
  BULK_LABEL,
  type BulkChoice,
  type BulkVerb,
  bulkBody,
  bulkCountQuery,
  PREVIEW_MAX_CALLS,
  runBulk,
} from "../bulk.js";
import type { InstanceFilters } from "../instance-filters.js";
import { can, type Permissions } from "../permissions.js";
import { withParams } from "../route.js";
import { useLoad } from "../use-load.js";
import { navigate } from "../use-route.js";
import { BulkOutcome, BulkPreview, type Preview } from "./bulk-preview.js";
import { ErrorBox } from "./error-box.js";
import { CompatSummary } from "./upgrade-form.js";
import { VersionSelect } from "./version-select.js";

const BULK_KEYS = [
  "bulk",
  "bulk_force",
  "bulk_from",
  "bulk_to",
  "bulk_to_task",
  "bulk_paused",
  "bulk_preview",
] as const;

function version(text: string | null): number | null {
  return text !== null && /^[1-9]\d{0,9}$/.test(text) ? Number(text) : null;
}

/** The panel's choice from the list's URL; null when the panel is closed. */
function choiceFromSearch(search: string, verbs: BulkVerb[]): BulkChoice | null {
  const params = new URLSearchParams(search);
  const verb = params.get("bulk");
  if (verb === null) return null;
  return {
    verb: (verbs as string[]).includes(verb) ? (verb as BulkVerb) : "retry",
    force: params.get("bulk_force") === "true",
    from: version(params.get("bulk_from")),
    to: version(params.get("bulk_to")),
    toTask: params.get("bulk_to_task") ?? "",
    paused: params.get("bulk_paused") === "true",
  };
}

/** The versions of the process and the compatibility of from → to, for an upgrade choice. */
function useUpgradeFacts(process: string, choice: BulkChoice | null) {
  const upgrading = choice?.verb === "upgrade" && process !== "";
  const versions = useLoad<Page<DefinitionSummary> | null>(
    (signal) =>
      upgrading
        ? call("listDefinitions", { query: { name: process, sort: "version", order: "desc", limit: 100 }, signal })
        : Promise.resolve(null),
    upgrading ? process : "",
  );
  const pair = upgrading && choice.from !== null && choice.to !== null && choice.from !== choice.to;
  const compat = useLoad<CompatReport | null>(
    (signal) =>
      pair
        ? call("compatDefinitions", {
            body: {
              from: { versions: { [process]: choice.from! } },
              to: { versions: { [process]: choice.to! } },
              process,
            },
            signal,
          }).then((answer) => answer.processes?.find((r) => r.name === process) ?? null)
        : Promise.resolve(null),
    pair ? `${process}:${choice.from}>${choice.to}` : "",
  );
  return { versions, compat, pair };
}

export function BulkActions({
  filters,
  search,
  permissions,
  onChanged,
}: {
  filters: InstanceFilters;
  search: string;
  permissions: Permissions;
  onChanged: () => void;
}) {
  // Upgrade needs `deploy` (the single verb's permission); the others `operate`.
  const verbs = BULK_VERBS.filter((v) => v !== "upgrade" || can(permissions, "deploy"));
  const choice = choiceFromSearch(search, verbs);
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [result, setResult] = useState<{ verb: BulkVerb; answer: BulkResult } | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const resultRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (result) resultRef.current?.focus();
  }, [result]);
  const process = filters.process.trim();
  const upgrade = useUpgradeFacts(process, choice);
  const compatDone = upgrade.compat.data !== undefined || upgrade.compat.error !== undefined;

  /** Moves the panel's state in the URL (replacing the history entry: it is not a page of its own). */
  const set = (changes: Partial<Record<(typeof BULK_KEYS)[number], string | null>>) =>
    navigate({ page: "instances", search: withParams(search, changes) }, { replace: true });
  const reset = () => {
    setPreview(null);
    setResult(null);
    setError(undefined);
    set({ bulk_preview: null });
  };

  function blocker(c: BulkChoice): string | null {
    if (filters.children) return "Bulk actions act on whole trees through their roots: untick Include children first.";
    if (c.verb === "reset") return c.toTask.trim() === "" ? "Name the task to go back to (Reset to task)." : null;
    if (c.verb !== "upgrade") return null;
    if (!process)
      return "Upgrade moves the trees of one process: filter the list by a process first (Process in the filters).";
    if (c.from === null || c.to === null || c.from === c.to)
      return "Choose the version to upgrade from and the one to.";
    return null;
  }

  async function dryRun(c: BulkChoice) {
    setPreview(null);
    setResult(null);
    setError(undefined);
    const refusal = blocker(c);
    if (refusal) return setError(new Error(refusal));
    set({ bulk_preview: "true" });
    setBusy(true);
    try {
      const [answer, counts] = await Promise.all([
        runBulk(c.verb, { ...bulkBody(filters, c), dry_run: true }, PREVIEW_MAX_CALLS),
        call("countInstances", { query: { ...bulkCountQuery(filters, c), by: "status" } }),
      ]);
      setPreview({
        choice: c,
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

  // A reload (or a shared link) with the preview open shows it again: a dry run changes nothing.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, for the URL the panel opened with
  useEffect(() => {
    if (choice && new URLSearchParams(search).get("bulk_preview") === "true") dryRun(choice);
  }, []);

  async function confirm(p: Preview) {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await runBulk(p.choice.verb, bulkBody(filters, p.choice), Infinity);
      setPreview(null);
      set({ bulk_preview: null });
      setResult({ verb: p.choice.verb, answer });
      onChanged();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  const change = (changes: Partial<Record<(typeof BULK_KEYS)[number], string | null>>) => {
    setPreview(null);
    setResult(null);
    setError(undefined);
    set({ ...changes, bulk_preview: null });
  };
  const versionList = (upgrade.versions.data?.items ?? []).map((d) => d.version);
  return (
    <details
      className="bulk"
      open={choice !== null}
      onToggle={(e) => {
        const open = (e.currentTarget as HTMLDetailsElement).open;
        if (open && choice === null) set({ bulk: "retry" });
        if (!open && choice !== null) set(Object.fromEntries(BULK_KEYS.map((k) => [k, null])));
      }}
    >
      <summary>Bulk action on every root these filters select</summary>
      <div className="filter-row">
        <label>
          Action
          <select value={choice?.verb ?? "retry"} onChange={(e) => change({ bulk: e.target.value })}>
            {verbs.map((v) => (
              <option key={v} value={v}>
                {BULK_LABEL[v]}
              </option>
            ))}
          </select>
        </label>
        {choice?.verb === "reset" && (
          <label>
            Reset to task
            <input
              value={choice.toTask}
              placeholder="task id"
              onChange={(e) => change({ bulk_to_task: e.target.value || null })}
            />
          </label>
        )}
        {choice?.verb === "reset" && (
          <label className="check">
            <input
              type="checkbox"
              checked={choice.paused}
              onChange={(e) => change({ bulk_paused: e.target.checked ? "true" : null })}
            />
            land paused (to upgrade them first)
          </label>
        )}
        {(choice?.verb === "retry" || choice?.verb === "reset") && (
          <label className="check">
            <input
              type="checkbox"
              checked={choice.force}
              onChange={(e) => change({ bulk_force: e.target.checked ? "true" : null })}
            />
            force (override the only_once protection)
          </label>
        )}
        {choice?.verb === "upgrade" && process && (
          <>
            <VersionSelect
              label="From version"
              blank="choose"
              versions={versionList}
              value={choice.from ?? ""}
              onChange={(v) => change({ bulk_from: v || null })}
            />
            <VersionSelect
              label="To version"
              blank="choose"
              versions={versionList.filter((v) => v !== choice.from)}
              value={choice.to ?? ""}
              onChange={(v) => change({ bulk_to: v || null })}
            />
          </>
        )}
        <button
          type="button"
          disabled={busy || !choice || (choice.verb === "upgrade" && upgrade.pair && !compatDone)}
          onClick={() => choice && dryRun(choice)}
        >
          Preview
        </button>
        {choice?.verb === "upgrade" && upgrade.pair && !compatDone && (
          <span className="muted">Checking compatibility…</span>
        )}
      </div>
      {choice?.verb === "upgrade" && !process && (
        <p className="muted">Upgrade moves the trees of one process: filter the list by a process first.</p>
      )}
      {choice?.verb === "upgrade" && upgrade.pair && upgrade.compat.error !== undefined && (
        <div>
          <p className="muted">The compatibility check failed; the upgrade itself still checks each tree:</p>
          <ErrorBox error={upgrade.compat.error} />
        </div>
      )}
      {choice?.verb === "upgrade" && upgrade.pair && upgrade.compat.data && (
        <CompatSummary report={upgrade.compat.data} to={choice.to!} />
      )}
      {preview && (
        <BulkPreview
          key={JSON.stringify(preview.choice)}
          preview={preview}
          busy={busy}
          onConfirm={() => confirm(preview)}
          onBack={reset}
        />
      )}
      <div ref={resultRef} tabIndex={-1}>
        {result && <BulkOutcome verb={result.verb} answer={result.answer} />}
        <ErrorBox error={error ?? upgrade.versions.error} />
      </div>
    </details>
  );
}
