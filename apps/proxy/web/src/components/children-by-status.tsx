// The direct children in one status (GET /instances?parent_id=<id>&status=<s>), chosen from the
// children's counts by status, newest first, paged: a status filter on the children that reads
// from the API, so it finds children however wide the fan-out is. The choice and its page
// live in the instance page's URL (`children_status`, `children_after`/`children_before`).

import { INSTANCE_STATUSES, type InstanceCounts, type InstanceRow, type Page } from "@baton/actions";
import { call } from "../api.js";
import { withParams } from "../route.js";
import { POLL_MS, useLoad } from "../use-load.js";
import { navigate } from "../use-route.js";
import { ErrorBox } from "./error-box.js";
import { type Cursor, Pager } from "./pager.js";
import { InstanceTable } from "../pages/instances.js";

export function ChildrenByStatus({
  id,
  search,
  counts,
  live,
}: {
  id: string;
  search: string;
  counts: InstanceCounts;
  live: boolean;
}) {
  const params = new URLSearchParams(search);
  const asked = params.get("children_status") ?? "";
  const status = (INSTANCE_STATUSES as readonly string[]).includes(asked) ? asked : "";
  const after = params.get("children_after");
  const before = params.get("children_before");
  const cursor: Cursor = after ? { after } : before ? { before } : {};
  const go = (changes: Record<string, string | null | undefined>) => {
    const q = withParams(search, changes);
    navigate({ page: "instance", id, ...(q ? { search: q } : {}) });
  };
  const setCursor = (next: Cursor) => go({ children_after: next.after, children_before: next.before });
  const present = INSTANCE_STATUSES.map((s) => ({
    status: s,
    count: counts.groups.filter((g) => g.status === s).reduce((n, g) => n + g.count, 0),
  })).filter((g) => g.count > 0);
  const list = useLoad<Page<InstanceRow> | null>(
    (signal) =>
      status
        ? call("listInstances", { query: { parent_id: id, status, ...cursor, limit: 50 }, signal })
        : Promise.resolve(null),
    JSON.stringify([id, status, cursor]),
    live && status ? POLL_MS : undefined,
  );
  const rows = list.data?.items ?? [];
  return (
    <div className="children-by-status">
      <label>
        Children with status
        <select
          value={status}
          onChange={(e) => go({ children_status: e.target.value, children_after: null, children_before: null })}
        >
          <option value="">choose a status</option>
          {present.map((g) => (
            <option key={g.status} value={g.status}>
              {g.status} ({g.count})
            </option>
          ))}
        </select>
      </label>
      <ErrorBox error={list.error} />
      {status && list.data && (
        <>
          <Pager page={list.data.page} shown={rows.length} onMove={setCursor} label="Children pages" />
          {rows.length === 0 ? (
            <p>No child is {status} now.</p>
          ) : (
            <InstanceTable rows={rows} caption={`Children ${status}, newest first`} />
          )}
        </>
      )}
    </div>
  );
}
