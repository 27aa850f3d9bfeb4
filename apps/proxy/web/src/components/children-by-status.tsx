// The direct children in one status (GET /instances?parent_id=<id>&status=<s>), chosen from the
// children's counts by status, newest first, paged: a status filter on the children that reads
// from the API, so it finds children however wide the fan-out is.

import type { InstanceCounts, InstanceRow, Page } from "@baton/actions";
import { useState } from "react";
import { call } from "../api.js";
import { STATUSES } from "../instance-filters.js";
import { POLL_MS, useLoad } from "../use-load.js";
import { ErrorBox } from "./error-box.js";
import { type Cursor, Pager } from "./pager.js";
import { InstanceTable } from "../pages/instances.js";

export function ChildrenByStatus({ id, counts, live }: { id: string; counts: InstanceCounts; live: boolean }) {
  const [status, setStatus] = useState("");
  const [cursor, setCursor] = useState<Cursor>({});
  const present = STATUSES.map((s) => ({
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
          onChange={(e) => {
            setCursor({});
            setStatus(e.target.value);
          }}
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
