// The instance list's filters as one compact bar: status chips, a process picker, business key
// and error code in one row; version, task, phase, children and times folded under "More
// filters" (open by itself when one of them is set, so a link never hides what it filters on).

import { INSTANCE_PHASES, INSTANCE_STATUSES } from "@baton/actions";
import { type FormEvent, useState } from "react";
import {
  hasMoreFilters,
  type InstanceFilters,
  localInputToMs,
  msToLocalInput,
  TIME_FILTERS,
  filtersToSearch,
} from "../instance-filters.js";
import { navigate } from "../use-route.js";

const TIME_LABELS: Record<(typeof TIME_FILTERS)[number], string> = {
  created_after: "Created at or after",
  created_before: "Created before",
  updated_after: "Updated at or after",
  updated_before: "Updated before",
};

/**
 * Keyed by the applied search by its owner: a poll re-renders the page without touching the
 * draft (the draft is state of this component, never reset by an effect).
 */
export function FilterBar({ applied, processes }: { applied: InstanceFilters; processes: readonly string[] }) {
  const [draft, setDraft] = useState(applied);
  const set = <K extends keyof InstanceFilters>(key: K, value: InstanceFilters[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));
  // A process named by the link stays choosable even when no instance of it exists (yet).
  const choices = [...new Set([...processes, ...(applied.process ? [applied.process] : [])])].sort();

  function submit(event: FormEvent) {
    event.preventDefault();
    navigate({ page: "instances", search: filtersToSearch(draft) });
  }

  return (
    <form className="filter-bar" onSubmit={submit} aria-label="Instance filters">
      <fieldset className="status-chips">
        <legend>Status</legend>
        {INSTANCE_STATUSES.map((status) => (
          <label key={status} className={`chip${draft.status.includes(status) ? " chip-on" : ""}`}>
            <input
              type="checkbox"
              checked={draft.status.includes(status)}
              onChange={(e) =>
                set("status", e.target.checked ? [...draft.status, status] : draft.status.filter((s) => s !== status))
              }
            />
            {status}
          </label>
        ))}
      </fieldset>
      <div className="filter-row">
        <label>
          Process
          <select value={draft.process} onChange={(e) => set("process", e.target.value)}>
            <option value="">any process</option>
            {choices.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Business key
          <input
            type="search"
            value={draft.key}
            placeholder="exact key, e.g. order-4711"
            onChange={(e) => set("key", e.target.value)}
          />
        </label>
        <label>
          Error code (http.503, or a prefix: http.5%)
          <input value={draft.error_code} onChange={(e) => set("error_code", e.target.value)} size={12} />
        </label>
        <button type="submit">Apply filters</button>
        <button type="button" onClick={() => navigate({ page: "instances", search: "" })}>
          Clear
        </button>
      </div>
      <details className="more-filters" open={hasMoreFilters(applied) || undefined}>
        <summary>More filters</summary>
        <div className="filter-row">
          <label>
            Version
            <input
              inputMode="numeric"
              value={draft.version}
              placeholder="any"
              onChange={(e) => set("version", e.target.value)}
              size={5}
            />
          </label>
          <label>
            Task
            <input value={draft.task} onChange={(e) => set("task", e.target.value)} size={12} />
          </label>
          <label>
            Phase
            <select value={draft.phase} onChange={(e) => set("phase", e.target.value)}>
              <option value="">any</option>
              {INSTANCE_PHASES.map((phase) => (
                <option key={phase}>{phase}</option>
              ))}
            </select>
          </label>
          <label className="check">
            <input type="checkbox" checked={draft.children} onChange={(e) => set("children", e.target.checked)} />
            Include children
          </label>
        </div>
        <div className="filter-row">
          {TIME_FILTERS.map((key) => (
            <label key={key}>
              {TIME_LABELS[key]}
              <input
                type="datetime-local"
                value={msToLocalInput(draft[key])}
                onChange={(e) => set(key, localInputToMs(e.target.value))}
              />
            </label>
          ))}
        </div>
      </details>
    </form>
  );
}
