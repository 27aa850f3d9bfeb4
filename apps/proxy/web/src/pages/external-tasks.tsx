import type { InstanceRow, Page } from "@baton/actions";
import { useState } from "react";
import { call } from "../api.js";
import { ErrorBox } from "../components/error-box.js";
import { type Cursor, Pager } from "../components/pager.js";
import { POLL_MS, useLoad } from "../use-load.js";
import { InstanceTable } from "./instances.js";

/**
 * The API has no read-only list of external tasks (claiming one leases it), so waiting tasks
 * are the instances parked in phase `external`, children included.
 */
export function ExternalTasksPage() {
  const [cursor, setCursor] = useState<Cursor>({});
  const list = useLoad<Page<InstanceRow>>(
    (signal) =>
      call("listInstances", {
        query: { phase: "external", children: true, sort: "updated_at", order: "asc", ...cursor, limit: 50 },
        signal,
      }),
    JSON.stringify(cursor),
    POLL_MS,
  );
  const rows = list.data?.items ?? [];
  return (
    <section>
      <h1>External tasks waiting</h1>
      <p className="muted">
        Instances parked on an external task until a worker resolves it, a signal arrives or its timeout passes; longest
        waiting first.
      </p>
      <ErrorBox error={list.error} />
      <Pager page={list.data?.page} shown={rows.length} onMove={setCursor} label="Waiting task pages" />
      {list.data && rows.length === 0 && <p>No instance is waiting on an external task.</p>}
      {rows.length > 0 && <InstanceTable rows={rows} caption="Instances in phase external" />}
    </section>
  );
}
