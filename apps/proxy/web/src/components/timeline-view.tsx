// The instance's execution timeline (src/timeline.ts), read from its own log entries oldest
// first, 1,000 at a time: the first read takes the first 1,000, "Load the next 1,000" continues
// from its cursor, and a live instance's refresh reads only the entries written since the last
// one read (docs/ui.md "Timeline"), never the whole history again.

import type { LogEntry } from "@baton/actions";
import { useRef } from "react";
import { call } from "../api.js";
import { type Attempt, type Visit, buildTimeline, durationMs, formatDuration } from "../timeline.js";
import { type Loaded, POLL_MS, useLoad } from "../use-load.js";
import { ErrorBox } from "./error-box.js";
import { TimeText } from "./time-text.js";

/** Log pages of 100 one read takes at most: a read is at most 1,000 entries. */
const PAGES_PER_READ = 10;
const ENTRIES_PER_READ = PAGES_PER_READ * 100;

export interface TimelineData {
  visits: Visit[];
  /** Entries read so far. */
  read: number;
  /** More entries follow the ones read ("Load the next 1,000" reads them). */
  truncated: boolean;
}

/** What has been read of one instance's log, kept across refreshes. */
interface LogSoFar {
  id: string;
  entries: LogEntry[];
  seen: Set<string>;
  /** Where the next read continues when the last one stopped at its cap (with the filter it was made under). */
  next?: { after: string; createdAfter?: number };
  /** The reader asked for the next 1,000. */
  wantMore: boolean;
}

const ordered = (a: LogEntry, b: LogEntry) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** Reads at most ENTRIES_PER_READ entries after what `log` has, and adds them to it. */
async function readMore(log: LogSoFar, signal: AbortSignal): Promise<void> {
  const last = log.entries.at(-1);
  // At the end of what exists: continue from the last entry's instant (`created_after` is
  // "at or after"; the entries of that instant already read are skipped by id).
  const createdAfter = log.next ? log.next.createdAfter : last ? Date.parse(last.created_at) : undefined;
  let after = log.next?.after;
  const read: LogEntry[] = [];
  let next: LogSoFar["next"];
  for (let page = 0; page < PAGES_PER_READ; page++) {
    const answer = await call("listInstanceLogs", {
      params: { id: log.id },
      query: {
        order: "asc",
        flat: true,
        level: "debug",
        limit: 100,
        ...(createdAfter !== undefined ? { created_after: createdAfter } : {}),
        ...(after ? { after } : {}),
      },
      signal,
    });
    read.push(...answer.items);
    if (!answer.page.next_cursor) break;
    after = answer.page.next_cursor;
    if (page === PAGES_PER_READ - 1) next = { after, ...(createdAfter !== undefined ? { createdAfter } : {}) };
  }
  let outOfOrder = false;
  for (const entry of read) {
    if (log.seen.has(entry.id)) continue;
    const tail = log.entries.at(-1);
    if (tail && ordered(tail, entry) > 0) outOfOrder = true;
    log.seen.add(entry.id);
    log.entries.push(entry);
  }
  // Two writers can commit entries of one instant out of id order; the timeline wants log order.
  if (outOfOrder) log.entries.sort(ordered);
  log.next = next;
}

/** The instance's own log entries (flat, every level), oldest first, as visits; `loadMore` reads the next 1,000. */
export function useTimeline(id: string, live: boolean): Loaded<TimelineData> & { loadMore: () => void } {
  const logRef = useRef<LogSoFar>({ id, entries: [], seen: new Set(), wantMore: false });
  const loaded = useLoad<TimelineData>(
    async (signal) => {
      if (logRef.current.id !== id) logRef.current = { id, entries: [], seen: new Set(), wantMore: false };
      const log = logRef.current;
      // A history cut at a read's cap is read further only when asked: a refresh does not page
      // through a long history by itself.
      if (!log.next || log.wantMore || log.entries.length === 0) {
        await readMore(log, signal);
        log.wantMore = false;
      }
      return { visits: buildTimeline(log.entries), read: log.entries.length, truncated: log.next !== undefined };
    },
    // `live` is in the key: the instance settling reads the timeline once more, since the last
    // poll may predate the entries of its final step.
    `timeline:${id}:${live}`,
    live ? POLL_MS : undefined,
  );
  const loadMore = () => {
    logRef.current.wantMore = true;
    loaded.reload();
  };
  return { ...loaded, loadMore };
}

/**
 * The duration of an attempt: at least its call's own latency (a fetch's log entries may be
 * written together after the call, 0 ms apart), and for a delay the time it was asked to wait,
 * with how much later the engine woke (docs/ui.md "Instance — #/instances/<id>").
 */
function durationText(ms: number, attempt: Attempt, planned?: number): string {
  if (planned !== undefined && ms > planned)
    return `${formatDuration(planned)} (woke ${formatDuration(ms - planned)} later)`;
  return formatDuration(Math.max(ms, attempt.latencyMs ?? 0));
}

function outcomeText(outcome: string, httpStatus?: number, code?: string): string {
  return [outcome, httpStatus !== undefined ? `HTTP ${httpStatus}` : "", code ?? ""].filter(Boolean).join(" · ");
}

export function TimelineView({
  loaded,
  wakeAt,
  delays,
}: {
  loaded: ReturnType<typeof useTimeline>;
  /** The wait each `delay` task of the definition asks for (`for`), in ms, by task id. */
  delays?: Readonly<Record<string, number>>;
  /** The instance's `wake_at`: when the engine next acts by itself (a retry, a deadline). */
  wakeAt: string | null | undefined;
}) {
  const data = loaded.data;
  return (
    <section aria-labelledby="timeline-heading" className="timeline">
      <h2 id="timeline-heading">Timeline</h2>
      <ErrorBox error={loaded.error} />
      {!data ? (
        !loaded.error && <p className="loading">Loading…</p>
      ) : data.visits.length === 0 ? (
        <p className="muted">No task has started yet.</p>
      ) : (
        <table aria-label="Execution timeline">
          <caption>
            Each visit to a task, with its attempts, oldest first
            {data.truncated ? ` (the first ${data.read.toLocaleString("en-US")} log entries; more follow)` : ""}
            {wakeAt ? (
              <>
                {" "}
                · the engine acts next at <TimeText iso={wakeAt} />
              </>
            ) : null}
          </caption>
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Attempt</th>
              <th scope="col">Outcome</th>
              <th scope="col">Duration</th>
              <th scope="col">Call</th>
              <th scope="col">Then</th>
              <th scope="col">Started</th>
              <th scope="col">Ended</th>
            </tr>
          </thead>
          <tbody>
            {data.visits.map((visit, v) =>
              visit.attempts.map((attempt, a) => {
                const ms = durationMs(attempt);
                return (
                  // biome-ignore lint/suspicious/noArrayIndexKey: visits and attempts only grow at the end
                  <tr key={`${v}.${a}`} data-task={visit.task} data-outcome={attempt.outcome}>
                    <th scope="row">
                      <span className="visit-task">{a === 0 ? `${v + 1}. ${visit.task}` : ""}</span>
                    </th>
                    <td className="num">{attempt.outcome === "ran" ? "" : a + 1}</td>
                    <td className={attempt.outcome === "failed" || attempt.outcome === "timed out" ? "error-text" : ""}>
                      {outcomeText(attempt.outcome, attempt.httpStatus, attempt.code)}
                      {visit.via && attempt.outcome === "resolved" ? ` (via ${visit.via})` : ""}
                    </td>
                    <td className="num">{ms === undefined ? "" : durationText(ms, attempt, delays?.[visit.task])}</td>
                    <td className="mono">
                      {attempt.host ?? ""}
                      {attempt.latencyMs !== undefined ? ` in ${formatDuration(attempt.latencyMs)}` : ""}
                    </td>
                    <td>
                      {attempt.retryAt ? (
                        <>
                          retry {attempt.retryNumber ?? ""} at <TimeText iso={attempt.retryAt} />
                        </>
                      ) : attempt.outcome === "running" && (visit.deadline || visit.wakeAt) ? (
                        <>
                          {visit.deadline ? "deadline" : "wakes"} <TimeText iso={(visit.deadline ?? visit.wakeAt)!} />
                        </>
                      ) : attempt.outcome === "running" &&
                        visit.deadline === undefined &&
                        visit.wakeAt === undefined ? (
                        <span className="muted">waiting</span>
                      ) : (
                        ""
                      )}
                    </td>
                    <td>
                      <TimeText iso={attempt.start} />
                    </td>
                    <td>{attempt.end ? <TimeText iso={attempt.end} /> : ""}</td>
                  </tr>
                );
              }),
            )}
          </tbody>
        </table>
      )}
      {data?.truncated && (
        <p>
          <button type="button" onClick={loaded.loadMore}>
            Load the next {ENTRIES_PER_READ.toLocaleString("en-US")} log entries
          </button>{" "}
          <span className="muted" data-testid="timeline-read">
            {data.read.toLocaleString("en-US")} read so far
          </span>
        </p>
      )}
    </section>
  );
}
