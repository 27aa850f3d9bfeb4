import type { InstanceCounts, InstanceRow, Page } from "@baton/actions";
import { call } from "../api.js";
import { POLL_MS, useLoad } from "../use-load.js";
import { ErrorBox } from "./error-box.js";
import { Link } from "./link.js";
import { StatusBadge } from "./status-badge.js";

/** Child statuses that count as "failed" in the summary and the failed list. */
export const FAILED_CHILD_STATUSES = ["failed", "raised"] as const;

export interface ChildFailures {
  counts: InstanceCounts;
  failed: Page<InstanceRow>;
}

/**
 * The direct children's counts by status and the failed ones (GET /instances/counts and
 * GET /instances?parent_id=&status=failed,raised): read from the API, so a failed child is
 * found however far down a wide fan-out it sits, never only within the children shown.
 */
export function useChildFailures(id: string, live: boolean) {
  return useLoad<ChildFailures>(
    async (signal) => {
      const [counts, failed] = await Promise.all([
        call("countInstances", { query: { parent_id: id, by: "status" }, signal }),
        call("listInstances", {
          query: { parent_id: id, status: FAILED_CHILD_STATUSES.join(","), limit: 100 },
          signal,
        }),
      ]);
      return { counts, failed };
    },
    id,
    live ? POLL_MS : undefined,
  );
}

/** "2 of 120 children failed", the children by status, and every failed child with its error. */
export function ChildFailuresView({
  loaded,
  places,
}: {
  loaded: ReturnType<typeof useChildFailures>;
  /** Each child id's place in this parent (`each_sku[31]`), from its `_children`. */
  places: ReadonlyMap<string, string>;
}) {
  const data = loaded.data;
  if (!data) return <ErrorBox error={loaded.error} />;
  const { counts, failed } = data;
  if (counts.total === 0) return null;
  const failedCount = counts.groups
    .filter((g) => (FAILED_CHILD_STATUSES as readonly string[]).includes(g.status ?? ""))
    .reduce((sum, g) => sum + g.count, 0);
  return (
    <div className="child-failures">
      <p className={failedCount ? "children-summary error-text" : "children-summary"} data-testid="children-summary">
        {failedCount} of {counts.total} {counts.total === 1 ? "child" : "children"} failed
        <span className="muted"> ({counts.groups.map((g) => `${g.count} ${g.status}`).join(", ")})</span>
      </p>
      {failed.items.length > 0 && (
        <table>
          <caption>Failed children{failed.page.next_cursor ? " (first 100)" : ""}</caption>
          <thead>
            <tr>
              <th scope="col">Child</th>
              <th scope="col">Place</th>
              <th scope="col">Process</th>
              <th scope="col">Status</th>
              <th scope="col">Task</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {failed.items.map((row) => (
              <tr key={row.id} data-failed-child={row.id}>
                <td>
                  <Link to={{ page: "instance", id: row.id }} className="mono">
                    {row.id}
                  </Link>
                </td>
                <td className="mono" data-testid="child-place">
                  {places.get(row.id) ?? ""}
                </td>
                <td>
                  {row.process} <span className="muted">v{row.version}</span>
                </td>
                <td>
                  <StatusBadge status={row.status} />
                </td>
                <td>{row.task}</td>
                <td>
                  <code>{row.error_code}</code> {row.error_message}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorBox error={loaded.error} />
    </div>
  );
}
