// The instance's execution timeline (src/timeline.ts), read from its own log entries oldest
// first; refreshed while the instance is live.

import type { LogEntry } from "@baton/actions";
import { call } from "../api.js";
import { type Visit, buildTimeline, durationMs, formatDuration } from "../timeline.js";
import { POLL_MS, useLoad } from "../use-load.js";
import { ErrorBox } from "./error-box.js";
import { TimeText } from "./time-text.js";

/** Log pages of 100 read for the timeline at most; a longer history is cut (and says so). */
const MAX_PAGES = 10;

export interface TimelineData {
  visits: Visit[];
  truncated: boolean;
}

/** The instance's own log entries (flat, every level), oldest first, as visits. */
export function useTimeline(id: string, live: boolean) {
  return useLoad<TimelineData>(
    async (signal) => {
      const entries: LogEntry[] = [];
      let after: string | undefined;
      let truncated = false;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await call("listInstanceLogs", {
          params: { id },
          query: { order: "asc", flat: true, level: "debug", limit: 100, ...(after ? { after } : {}) },
          signal,
        });
        entries.push(...answer.items);
        if (!answer.page.next_cursor) break;
        after = answer.page.next_cursor;
        truncated = page === MAX_PAGES - 1;
      }
      return { visits: buildTimeline(entries), truncated };
    },
    // `live` is in the key: the instance settling reads the timeline once more, since the last
    // poll may predate the entries of its final step.
    `timeline:${id}:${live}`,
    live ? POLL_MS : undefined,
  );
}

function outcomeText(outcome: string, httpStatus?: number, code?: string): string {
  return [outcome, httpStatus !== undefined ? `HTTP ${httpStatus}` : "", code ?? ""].filter(Boolean).join(" · ");
}

export function TimelineView({
  loaded,
  wakeAt,
}: {
  loaded: ReturnType<typeof useTimeline>;
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
            {data.truncated ? ` (the first ${MAX_PAGES * 100} log entries only)` : ""}
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
              <th scope="col">Started</th>
              <th scope="col">Ended</th>
              <th scope="col">Duration</th>
              <th scope="col">Outcome</th>
              <th scope="col">Call</th>
              <th scope="col">Then</th>
            </tr>
          </thead>
          <tbody>
            {data.visits.map((visit, v) =>
              visit.attempts.map((attempt, a) => {
                const ms = durationMs(attempt);
                return (
                  // biome-ignore lint/suspicious/noArrayIndexKey: visits and attempts only grow at the end
                  <tr key={`${v}.${a}`} data-task={visit.task} data-outcome={attempt.outcome}>
                    <th scope="row">{a === 0 ? `${v + 1}. ${visit.task}` : ""}</th>
                    <td className="num">{attempt.outcome === "ran" ? "" : a + 1}</td>
                    <td>
                      <TimeText iso={attempt.start} />
                    </td>
                    <td>{attempt.end ? <TimeText iso={attempt.end} /> : ""}</td>
                    <td className="num">{ms === undefined ? "" : formatDuration(ms)}</td>
                    <td className={attempt.outcome === "failed" || attempt.outcome === "timed out" ? "error-text" : ""}>
                      {outcomeText(attempt.outcome, attempt.httpStatus, attempt.code)}
                      {visit.via && attempt.outcome === "resolved" ? ` (via ${visit.via})` : ""}
                    </td>
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
                  </tr>
                );
              }),
            )}
          </tbody>
        </table>
      )}
    </section>
  );
}
