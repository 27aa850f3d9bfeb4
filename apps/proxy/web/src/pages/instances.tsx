import type { InstanceRow, Page } from "@baton/actions";
import { call } from "../api.js";
import { ErrorBox } from "../components/error-box.js";
import { Link } from "../components/link.js";
import { type Cursor, Pager } from "../components/pager.js";
import { StatusBadge } from "../components/status-badge.js";
import { TimeText } from "../components/time-text.js";
import { BulkActions } from "../components/bulk-actions.js";
import { FilterBar } from "../components/filter-bar.js";
import { ActivityChart } from "../components/activity-chart.js";
import { Incidents } from "../components/incidents.js";
import { StatusSummary, useProcessNames } from "../components/status-summary.js";
import {
  EMPTY_FILTERS,
  filterProblems,
  filtersFromSearch,
  filtersToQuery,
  filtersToSearch,
} from "../instance-filters.js";
import { POLL_MS, useLoad } from "../use-load.js";
import { withParams } from "../route.js";
import { navigate } from "../use-route.js";
import { can, type Permissions } from "../permissions.js";

const PAGE_SIZES = [20, 50, 100];

export function InstanceTable({ rows, caption }: { rows: InstanceRow[]; caption: string }) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Instance</th>
          <th scope="col">Process</th>
          <th scope="col">Key</th>
          <th scope="col">Status</th>
          <th scope="col">Task</th>
          <th scope="col">Phase</th>
          <th scope="col">Error</th>
          <th scope="col">Retries</th>
          <th scope="col">Created</th>
          <th scope="col">Updated</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id} data-instance={row.id}>
            <td>
              <Link to={{ page: "instance", id: row.id }} className="mono">
                {row.id}
              </Link>
              {row.parent_id && (
                <span className="muted child-of">
                  {" "}
                  child of{" "}
                  <Link to={{ page: "instance", id: row.parent_id }} className="mono">
                    {row.parent_id}
                  </Link>
                </span>
              )}
            </td>
            <td>
              {row.process} <span className="muted">v{row.version}</span>
            </td>
            <td className="mono">{row.key ?? ""}</td>
            <td>
              <StatusBadge status={row.status} />
            </td>
            <td>{row.task}</td>
            <td>{row.phase ?? ""}</td>
            <td>
              {row.error_code && (
                // A code is a link to every root with that code (docs/ui.md "Incidents").
                <Link
                  to={{ page: "instances", search: filtersToSearch({ ...EMPTY_FILTERS, error_code: row.error_code }) }}
                >
                  <code>{row.error_code}</code>
                  <span className="sr-only">: list every instance with this code</span>
                </Link>
              )}
              {row.error_message && <span className="error-message">{row.error_message}</span>}
            </td>
            <td>{row.retry_count}</td>
            <td>
              <TimeText iso={row.created_at} />
            </td>
            <td>
              <TimeText iso={row.updated_at} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function InstancesPage({ search, permissions }: { search: string; permissions: Permissions }) {
  const filters = filtersFromSearch(search);
  const problems = filterProblems(filters);
  // Page position and size live in the URL beside the filters (`&limit=50&after=…`), so a reload
  // or a shared link shows the same page. New filters (Apply) drop the cursor: a cursor belongs
  // to the filters it was issued under.
  const params = new URLSearchParams(search);
  const filterSearch = filtersToSearch(filters);
  const after = params.get("after");
  const before = params.get("before");
  const cursor: Cursor = after ? { after } : before ? { before } : {};
  const asked = Number(params.get("limit"));
  const limit = PAGE_SIZES.includes(asked) ? asked : PAGE_SIZES[0];
  const go = (next: { cursor: Cursor; limit?: number }) => {
    const size = next.limit ?? limit;
    navigate({
      page: "instances",
      search: withParams(search, {
        limit: size !== PAGE_SIZES[0] ? String(size) : null,
        after: next.cursor.after,
        before: next.cursor.before,
      }),
    });
  };
  const setCursor = (next: Cursor) => go({ cursor: next });
  // Not the whole search: the bulk panel's keys (bulk, bulk_force…) share the URL and do not change the list.
  const key = JSON.stringify([filterSearch, cursor, limit]);
  const list = useLoad<Page<InstanceRow> | null>(
    (signal) =>
      problems.length
        ? Promise.resolve(null)
        : call("listInstances", { query: { ...filtersToQuery(filters), ...cursor, limit }, signal }),
    key,
    POLL_MS,
  );
  const rows = list.data?.items ?? [];
  const processNames = useProcessNames(filters.children);
  return (
    <section>
      <h1>Instances</h1>
      <FilterBar key={filterSearch} applied={filters} processes={processNames} />
      {filterSearch === "" && <Incidents />}
      {filterSearch === "" && <ActivityChart />}
      {problems.length === 0 && <StatusSummary filters={filters} />}
      {problems.length === 0 && can(permissions, "operate") && (
        <BulkActions
          key={`bulk:${filterSearch}`}
          filters={filters}
          search={search}
          permissions={permissions}
          onChanged={list.reload}
        />
      )}
      {problems.length > 0 && (
        <ul className="error" role="alert">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <ErrorBox error={list.error} />
      <div className="list-head">
        <Pager page={list.data?.page} shown={rows.length} onMove={setCursor} label="Instance pages" />
        <label>
          Per page
          <select value={limit} onChange={(e) => go({ cursor: {}, limit: Number(e.target.value) })}>
            {PAGE_SIZES.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
      </div>
      {list.data === undefined && !list.error && problems.length === 0 ? (
        <p className="loading">Loading…</p>
      ) : list.data && rows.length === 0 ? (
        <p>No instance matches these filters.</p>
      ) : list.data ? (
        <InstanceTable
          rows={rows}
          caption={
            filtersToSearch(filters) === filtersToSearch(EMPTY_FILTERS)
              ? "Root instances, newest first"
              : "Matching instances, newest first"
          }
        />
      ) : null}
    </section>
  );
}
