// "Is anything wrong?": how many instances each process holds in each status
// (GET /instances/counts?by=process,status), under the list's other filters. Every count is a
// link to the list filtered to that process and status.

import { INSTANCE_STATUSES, type InstanceCounts } from "@baton/actions";
import { call } from "../api.js";
import { type InstanceFilters, filtersToQuery, filtersToSearch } from "../instance-filters.js";
import { POLL_MS, useLoad } from "../use-load.js";
import { ErrorBox } from "./error-box.js";
import { Link } from "./link.js";

/** Statuses whose count is drawn as trouble. */
const TROUBLE = new Set(["failed", "failing", "raised"]);

/** The counts query: the list's filters without status and process, which the table spreads out. */
function countQuery(filters: InstanceFilters) {
  const { status: _status, process: _process, ...rest } = filtersToQuery(filters);
  return rest;
}

export function StatusSummary({ filters }: { filters: InstanceFilters }) {
  const query = countQuery(filters);
  const counts = useLoad<InstanceCounts>(
    (signal) => call("countInstances", { query: { ...query, by: "process,status" }, signal }),
    JSON.stringify(query),
    POLL_MS,
  );
  if (!counts.data) return <ErrorBox error={counts.error} />;
  const { groups, total, truncated } = counts.data;
  // Trouble first, beside the process name: on a phone the columns that answer "is anything
  // wrong?" are the ones on screen, the rest scroll.
  const shownStatuses = [
    ...INSTANCE_STATUSES.filter((s) => TROUBLE.has(s)),
    ...INSTANCE_STATUSES.filter((s) => !TROUBLE.has(s)),
  ].filter((s) => groups.some((g) => g.status === s));
  const processes = [...new Set(groups.map((g) => g.process ?? ""))];
  const cell = (process: string | null, status: string | null): number =>
    groups
      .filter((g) => (process === null || g.process === process) && (status === null || g.status === status))
      .reduce((sum, g) => sum + g.count, 0);
  const linkTo = (process: string | null, status: string | null) => ({
    page: "instances" as const,
    search: filtersToSearch({
      ...filters,
      process: process ?? "",
      status: status ? [status] : [],
      // a version or task belongs to one process: keep them only on that process's row
      ...(process === null || process === filters.process ? {} : { version: "", task: "" }),
    }),
  });
  const selected = (process: string | null, status: string | null) =>
    (process ?? "") === filters.process &&
    (status === null ? filters.status.length === 0 : filters.status.length === 1 && filters.status[0] === status);
  const row = (process: string | null) => (
    <tr key={process ?? "*"} data-process={process ?? "*"}>
      <th scope="row">{process ?? "All processes"}</th>
      <td className={selected(process, null) ? "count-selected" : undefined}>
        <Link to={linkTo(process, null)}>{cell(process, null)}</Link>
      </td>
      {shownStatuses.map((status) => {
        const n = cell(process, status);
        return (
          <td
            key={status}
            data-status={status}
            className={`${n && TROUBLE.has(status) ? "count-bad" : ""}${selected(process, status) ? " count-selected" : ""}`}
          >
            {n ? (
              <Link to={linkTo(process, status)}>
                {n}
                <span className="sr-only"> {status}</span>
              </Link>
            ) : (
              <span className="muted">0</span>
            )}
          </td>
        );
      })}
    </tr>
  );
  return (
    <div className="status-summary">
      <ErrorBox error={counts.error} />
      {total === 0 ? (
        <p className="muted">No instance matches the filters other than status and process.</p>
      ) : (
        <table aria-label="Counts by status">
          <caption>
            Instances by process and status
            {filtersToSearch({ ...filters, status: [], process: "" }) ? " (other filters applied)" : ""}
            {truncated ? "; more than 1,000 groups: some processes are left out" : ""}
          </caption>
          <thead>
            <tr>
              <th scope="col">Process</th>
              <th scope="col">Total</th>
              {shownStatuses.map((status) => (
                <th scope="col" key={status}>
                  {status}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {row(null)}
            {processes.map((p) => row(p))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** The process names the picker offers: every process with an instance (roots, or all with `children`). */
export function useProcessNames(children: boolean): readonly string[] {
  const loaded = useLoad<InstanceCounts>(
    (signal) => call("countInstances", { query: { by: "process", ...(children ? { children: true } : {}) }, signal }),
    `processes:${children}`,
  );
  return (loaded.data?.groups ?? []).map((g) => g.process ?? "").filter(Boolean);
}
