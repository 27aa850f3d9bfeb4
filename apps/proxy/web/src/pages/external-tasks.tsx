// The tasklist: every external task an instance waits on now (GET /external-tasks, an
// extension that claims nothing), longest waiting first, each linked to its own page where a
// person with `worker` resolves it (pages/task.tsx).

import type { Page, WaitingExternalTask } from "@baton/actions";
import { call } from "../api.js";
import { ErrorBox } from "../components/error-box.js";
import { Link } from "../components/link.js";
import { type Cursor, Pager } from "../components/pager.js";
import { StatusBadge } from "../components/status-badge.js";
import { TimeText } from "../components/time-text.js";
import { jsonText } from "../json-text.js";
import { withParams } from "../route.js";
import { POLL_MS, useLoad } from "../use-load.js";
import { navigate } from "../use-route.js";

type WaitingTask = WaitingExternalTask;

/** One line of the input, cut: the whole input is on the task's page. */
function inputPreview(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

const CLAIMS = ["", "true", "false"] as const;

export function ExternalTasksPage({ search = "" }: { search?: string }) {
  // Filters and position live in the URL (`#/external?process=order&claimed=false`), so a
  // reload or a shared link shows the same tasks; a new filter drops the cursor (docs/ui.md "State in the URL").
  const params = new URLSearchParams(search);
  const process = params.get("process") ?? "";
  const askedClaim = params.get("claimed") ?? "";
  const claimed = (CLAIMS as readonly string[]).includes(askedClaim) ? (askedClaim as (typeof CLAIMS)[number]) : "";
  const after = params.get("after");
  const before = params.get("before");
  const cursor: Cursor = after ? { after } : before ? { before } : {};
  const go = (changes: Record<string, string | null>, replace = false) =>
    navigate({ page: "external", search: withParams(search, changes) }, { replace });
  const setCursor = (next: Cursor) => go({ after: next.after ?? null, before: next.before ?? null });
  const query = {
    ...(process.trim() ? { process: process.trim() } : {}),
    ...(claimed ? { claimed: claimed === "true" } : {}),
  };
  const list = useLoad<Page<WaitingTask>>(
    (signal) => call("listExternalTasks", { query: { ...query, ...cursor, limit: 50 }, signal }),
    JSON.stringify([query, cursor]),
    POLL_MS,
  );
  const rows = list.data?.items ?? [];
  return (
    <section>
      <h1>External tasks waiting</h1>
      <p className="muted">
        Tasks instances wait on until a worker or a person resolves them, a signal arrives or their deadline passes;
        longest waiting first. Open one to see its input and resolve it.
      </p>
      <div className="filter-row filter-bar">
        <label>
          Process
          <input
            value={process}
            onChange={(e) => go({ process: e.target.value, after: null, before: null }, true)}
            size={16}
          />
        </label>
        <label>
          Claim
          <select value={claimed} onChange={(e) => go({ claimed: e.target.value, after: null, before: null })}>
            <option value="">any</option>
            <option value="false">claimable now</option>
            <option value="true">claimed by a worker</option>
          </select>
        </label>
      </div>
      <ErrorBox error={list.error} />
      <Pager page={list.data?.page} shown={rows.length} onMove={setCursor} label="Waiting task pages" />
      {list.data && rows.length === 0 && <p>No instance is waiting on an external task.</p>}
      {rows.length > 0 && (
        <table>
          <caption>Waiting external tasks, longest waiting first</caption>
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Process</th>
              <th scope="col">Instance and business key</th>
              <th scope="col">Status</th>
              <th scope="col">Input</th>
              <th scope="col">Waiting since</th>
              <th scope="col">Deadline</th>
              <th scope="col">Claimed by</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((task) => (
              <tr key={task.instance_id} data-instance={task.instance_id}>
                <td>
                  <Link to={{ page: "task", instance: task.instance_id }}>{task.task}</Link>
                </td>
                <td>
                  {task.process} <span className="muted">v{task.version}</span>
                </td>
                <td>
                  <Link to={{ page: "instance", id: task.instance_id }} className="mono">
                    {task.instance_id}
                  </Link>
                  {task.key !== null && (
                    <div className="row-key">
                      key <span className="mono">{task.key}</span>
                    </div>
                  )}
                </td>
                <td>
                  <StatusBadge status={task.status} />
                </td>
                <td>
                  <code title={jsonText(task.external_input)}>{inputPreview(task.external_input)}</code>
                </td>
                <td>
                  <TimeText iso={task.waiting_since} />
                </td>
                <td>{task.deadline ? <TimeText iso={task.deadline} /> : <span className="muted">none</span>}</td>
                <td>
                  {task.claimed_by ? (
                    <>
                      {task.claimed_by} <span className="muted">until</span> <TimeText iso={task.claim_expires!} />
                    </>
                  ) : (
                    <span className="muted">nobody</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
