import type { LogEntry, LogLevel, Page } from "@baton/actions";
import { call } from "../api.js";
import { POLL_MS, useLoad } from "../use-load.js";
import { withParams } from "../route.js";
import { navigate } from "../use-route.js";
import { Actor } from "./actor.js";
import { ErrorBox } from "./error-box.js";
import { Link } from "./link.js";
import { type Cursor, Pager } from "./pager.js";
import { TimeText } from "./time-text.js";

const LEVELS: LogLevel[] = ["debug", "info", "warn", "error"];

/** The audit trail, newest first; live on the first page, still while paging back. */
export function LogsPanel({
  id,
  search,
  isRoot,
  live,
  traceUrl,
}: {
  id: string;
  search: string;
  isRoot: boolean;
  live: boolean;
  /** The proxy's `trace_url` (docs/tracing.md "The UI's trace link"); null: no link. */
  traceUrl: string | null;
}) {
  // Level, mode and position live in the instance page's URL (`#/instances/<id>?log_level=warn&flat=true`),
  // so a reload or a link shows the same logs.
  const params = new URLSearchParams(search);
  const askedLevel = params.get("log_level") as LogLevel | null;
  const level: LogLevel = askedLevel && LEVELS.includes(askedLevel) ? askedLevel : "debug";
  const flat = params.get("flat") === "true";
  const logAfter = params.get("log_after");
  const logBefore = params.get("log_before");
  const cursor: Cursor = logAfter ? { after: logAfter } : logBefore ? { before: logBefore } : {};
  const go = (next: { level?: LogLevel; flat?: boolean; cursor: Cursor }) => {
    const l = next.level ?? level;
    const q = withParams(search, {
      log_level: l !== "debug" ? l : null,
      flat: (next.flat ?? flat) ? "true" : null,
      log_after: next.cursor.after,
      log_before: next.cursor.before,
    });
    navigate({ page: "instance", id, ...(q ? { search: q } : {}) });
  };
  const setCursor = (next: Cursor) => go({ cursor: next });
  const key = JSON.stringify([id, level, flat, cursor]);
  const onFirstPage = !cursor.after && !cursor.before;
  const logs = useLoad<Page<LogEntry>>(
    (signal) =>
      call("listInstanceLogs", {
        params: { id },
        query: { ...(level !== "debug" ? { level } : {}), ...(flat ? { flat: true } : {}), ...cursor, limit: 50 },
        signal,
      }),
    key,
    onFirstPage && live ? POLL_MS : undefined,
  );
  const entries = logs.data?.items ?? [];
  const showInstance = isRoot && !flat;
  // One trace per tree (docs/tracing.md "Children"): every entry carries the same trace id.
  const traceId = entries.find((e) => e.trace_id !== undefined)?.trace_id;
  return (
    <section aria-labelledby="logs-heading">
      <h2 id="logs-heading">Logs</h2>
      <div className="list-head">
        <label>
          Level
          <select value={level} onChange={(e) => go({ level: e.target.value as LogLevel, cursor: {} })}>
            {LEVELS.map((l) => (
              <option key={l} value={l}>
                {l === "debug" ? "debug and above (all)" : `${l} and above`}
              </option>
            ))}
          </select>
        </label>
        {isRoot && (
          <fieldset className="inline">
            <legend>Rows</legend>
            <label className="check">
              <input type="radio" name="log-mode" checked={!flat} onChange={() => go({ flat: false, cursor: {} })} />
              whole tree
            </label>
            <label className="check">
              <input type="radio" name="log-mode" checked={flat} onChange={() => go({ flat: true, cursor: {} })} />
              this instance only (flat)
            </label>
          </fieldset>
        )}
        {traceUrl !== null && traceId !== undefined && (
          <a href={traceUrl.replaceAll("{trace_id}", encodeURIComponent(traceId))} target="_blank" rel="noreferrer">
            Open the trace
          </a>
        )}
        <Pager page={logs.data?.page} shown={entries.length} onMove={setCursor} label="Log pages" />
      </div>
      <ErrorBox error={logs.error} />
      {logs.data && entries.length === 0 && <p className="muted">No log entries at this level.</p>}
      {entries.length > 0 && (
        <table className="logs">
          <caption>Log entries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Level</th>
              <th scope="col">Event</th>
              <th scope="col">Task</th>
              {showInstance && <th scope="col">Instance</th>}
              <th scope="col">Message</th>
              <th scope="col">Actor</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} className={`level-${entry.level}`}>
                <td>
                  <TimeText iso={entry.created_at} />
                </td>
                <td>{entry.level}</td>
                <td className="mono">{entry.event}</td>
                <td>{entry.task ?? ""}</td>
                {showInstance && (
                  <td>
                    {entry.instance_id === id ? (
                      <span className="muted">this</span>
                    ) : (
                      <Link to={{ page: "instance", id: entry.instance_id }} className="mono">
                        {entry.instance_id.slice(-8)}
                      </Link>
                    )}
                  </td>
                )}
                <td>{entry.message}</td>
                <td>
                  <Actor actor={entry.actor} label={entry.actor_label} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
