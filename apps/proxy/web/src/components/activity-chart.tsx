// "Since when": completions, failures and raises of the last hour, day or week, one small chart
// per process (GET /instances/activity, docs/api.md "Activity over time"; docs/ui.md "Incidents").
// Each chart is an image with a sentence for its name; the figures are also written beside it.

import { ACTIVITY_STATUSES, ACTIVITY_WINDOWS, type ActivityWindow, type InstanceActivity } from "@baton/actions";
import { useState } from "react";
import { call } from "../api.js";
import { POLL_MS, useLoad } from "../use-load.js";
import { ErrorBox } from "./error-box.js";
import { TimeText } from "./time-text.js";

type Status = (typeof ACTIVITY_STATUSES)[number];

const WINDOW_LABELS: Record<ActivityWindow, string> = { hour: "last hour", day: "last day", week: "last week" };

export interface ProcessActivity {
  process: string;
  /** Per status, the count of each slice (oldest first). */
  slices: Record<Status, number[]>;
  totals: Record<Status, number>;
  /** The start of the first slice with a failure or a raise, or null. */
  firstTrouble: string | null;
}

/** The answer spread into one series per process and status; the processes with trouble first. */
export function activityByProcess(activity: InstanceActivity): ProcessActivity[] {
  const n = Math.round((Date.parse(activity.to) - Date.parse(activity.from)) / activity.bucket_ms);
  const from = Date.parse(activity.from);
  const byProcess = new Map<string, ProcessActivity>();
  for (const group of activity.groups) {
    let entry = byProcess.get(group.process);
    if (!entry) {
      entry = {
        process: group.process,
        slices: { completed: Array(n).fill(0), failed: Array(n).fill(0), raised: Array(n).fill(0) },
        totals: { completed: 0, failed: 0, raised: 0 },
        firstTrouble: null,
      };
      byProcess.set(group.process, entry);
    }
    const slice = Math.round((Date.parse(group.at) - from) / activity.bucket_ms);
    if (slice < 0 || slice >= n) continue;
    entry.slices[group.status][slice] += group.count;
    entry.totals[group.status] += group.count;
    if (group.status !== "completed" && (entry.firstTrouble === null || group.at < entry.firstTrouble))
      entry.firstTrouble = group.at;
  }
  const trouble = (p: ProcessActivity) => p.totals.failed + p.totals.raised;
  return [...byProcess.values()].sort((a, b) => trouble(b) - trouble(a) || a.process.localeCompare(b.process));
}

const CHART_W = 600;
const CHART_H = 60;

function Bars({ entry }: { entry: ProcessActivity }) {
  const n = entry.slices.completed.length;
  const totals = entry.slices.completed.map((c, i) => c + entry.slices.failed[i]! + entry.slices.raised[i]!);
  const top = Math.max(1, ...totals);
  const w = CHART_W / n;
  return (
    <svg
      viewBox={`0 0 ${CHART_W} ${CHART_H}`}
      preserveAspectRatio="none"
      className="activity-bars"
      role="img"
      aria-label={`${entry.process}: ${entry.totals.completed} completed, ${entry.totals.failed} failed, ${entry.totals.raised} raised`}
    >
      <line x1={0} x2={CHART_W} y1={CHART_H - 0.5} y2={CHART_H - 0.5} className="activity-axis" />
      {totals.map((_, i) => {
        let y = CHART_H;
        return ACTIVITY_STATUSES.map((status) => {
          const count = entry.slices[status][i]!;
          if (!count) return null;
          const h = Math.max(2, (count / top) * (CHART_H - 4));
          y -= h;
          return (
            <rect
              // biome-ignore lint/suspicious/noArrayIndexKey: slices are positions, fixed for one answer
              key={`${i}-${status}`}
              x={i * w + 0.5}
              y={y}
              width={Math.max(1, w - 1)}
              height={h}
              className={`activity-${status}`}
            />
          );
        });
      })}
    </svg>
  );
}

export function ActivityChart() {
  const [span, setSpan] = useState<ActivityWindow>("day");
  const loaded = useLoad<InstanceActivity>(
    (signal) => call("instanceActivity", { query: { window: span }, signal }),
    `activity:${span}`,
    POLL_MS,
  );
  const entries = loaded.data ? activityByProcess(loaded.data) : [];
  return (
    <section aria-labelledby="activity-heading" className="activity">
      <div className="activity-head">
        <h2 id="activity-heading">Activity</h2>
        <label>
          Window
          <select value={span} onChange={(e) => setSpan(e.target.value as ActivityWindow)}>
            {(Object.keys(ACTIVITY_WINDOWS) as ActivityWindow[]).map((w) => (
              <option key={w} value={w}>
                {WINDOW_LABELS[w]}
              </option>
            ))}
          </select>
        </label>
        <span className="activity-legend">
          <span className="key activity-key-completed">completed</span>{" "}
          <span className="key activity-key-failed">failed</span>{" "}
          <span className="key activity-key-raised">raised</span>
        </span>
      </div>
      <ErrorBox error={loaded.error} />
      {loaded.data && entries.length === 0 && <p className="muted">No root settled in the {WINDOW_LABELS[span]}.</p>}
      {entries.map((entry) => (
        <figure key={entry.process} className="activity-process" data-activity={entry.process}>
          <figcaption>
            <strong>{entry.process}</strong>{" "}
            <span data-testid="activity-totals">
              {entry.totals.completed} completed, <span className="error-text">{entry.totals.failed} failed</span>,{" "}
              {entry.totals.raised} raised
            </span>
            {entry.firstTrouble && (
              <span className="muted">
                {" "}
                · trouble since <TimeText iso={entry.firstTrouble} />
              </span>
            )}
          </figcaption>
          <Bars entry={entry} />
        </figure>
      ))}
      {loaded.data?.truncated && <p className="muted">More groups than one answer holds: some slices are left out.</p>}
    </section>
  );
}
