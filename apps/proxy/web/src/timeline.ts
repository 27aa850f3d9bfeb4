// The execution timeline of one instance, read from its own log entries in time order
// (docs/api.md "Timeline": GET /instances/{id}/logs?order=asc is the timeline). A visit is one
// stay on a task (a `task_epoch`); its attempts run from `task.started` to the task's next
// `task.completed`, `task.failed` or `external.resolved`; automatic retries
// stay in the visit, an operator's retry or a route back to the task opens a new one.

import type { LogEntry } from "@baton/actions";

export interface Attempt {
  start: string;
  end?: string;
  /** completed, failed, resolved (external), timed out, ran (a routing task), or running. */
  outcome: "completed" | "failed" | "resolved" | "timed out" | "ran" | "running";
  /** The HTTP status of a fetch that completed. */
  httpStatus?: number;
  /** The error code of a failed attempt. */
  code?: string;
  worker?: string;
  /** A fetch's target host (`data.host`) and the call's latency (`data.latency_ms`), on its end entry. */
  host?: string;
  latencyMs?: number;
  /** When the retry after this attempt was scheduled to start (failed + retry_scheduled). */
  retryAt?: string;
  retryNumber?: number;
}

export interface Visit {
  task: string;
  epoch?: number;
  attempts: Attempt[];
  /** An external task's deadline or a delay's wake-up (ISO), when the visit has one. */
  deadline?: string;
  wakeAt?: string;
  /** How the external task was resolved (`data.via`). */
  via?: string;
}

export function durationMs(attempt: Attempt): number | undefined {
  return attempt.end === undefined ? undefined : Date.parse(attempt.end) - Date.parse(attempt.start);
}

/** "850 ms", "12.3 s", "4 min 5 s", "2 h 3 min". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
}

const num = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

/** The fetch call facts a `task.completed`/`task.failed` entry carries. */
function callFacts(attempt: Attempt, data: Record<string, unknown>) {
  if (typeof data.host === "string") attempt.host = data.host;
  if (num(data.latency_ms) !== undefined) attempt.latencyMs = num(data.latency_ms);
}
const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The visits of the entries (one instance's, oldest first), in order. */
export function buildTimeline(entries: readonly LogEntry[]): Visit[] {
  const visits: Visit[] = [];
  const openVisit = (task: string): Visit | undefined => {
    for (let i = visits.length - 1; i >= 0; i--) if (visits[i]!.task === task) return visits[i];
    return undefined;
  };
  const openAttempt = (task: string): Attempt | undefined => {
    const visit = openVisit(task);
    const last = visit?.attempts[visit.attempts.length - 1];
    return last && last.outcome === "running" ? last : undefined;
  };
  /** The attempt an external outcome just ended, which the task's own completed/failed entry follows. */
  const justResolved = (task: string): Attempt | undefined => {
    const last = visits[visits.length - 1];
    const attempt = last?.attempts[last.attempts.length - 1];
    return last?.task === task && attempt?.outcome === "resolved" ? attempt : undefined;
  };
  for (const entry of entries) {
    const task = entry.task;
    if (!task) continue;
    const data = (entry.data ?? {}) as Record<string, unknown>;
    const epoch = num(data.task_epoch);
    switch (entry.event) {
      case "task.started": {
        const previous = visits[visits.length - 1];
        const sameVisit =
          previous !== undefined &&
          previous.task === task &&
          (epoch === undefined || previous.epoch === undefined || previous.epoch === epoch) &&
          previous.attempts.every((a) => a.outcome !== "running") &&
          previous.attempts[previous.attempts.length - 1]?.retryAt !== undefined;
        const visit: Visit = sameVisit ? previous : { task, ...(epoch !== undefined ? { epoch } : {}), attempts: [] };
        if (!sameVisit) visits.push(visit);
        const attempt: Attempt = { start: entry.created_at, outcome: "running" };
        if (typeof data.worker === "string") attempt.worker = data.worker;
        visit.attempts.push(attempt);
        if (num(data.deadline) !== undefined) visit.deadline = iso(num(data.deadline));
        if (num(data.wake_at) !== undefined) visit.wakeAt = iso(num(data.wake_at));
        break;
      }
      case "task.completed": {
        const attempt = openAttempt(task);
        if (justResolved(task)) break;
        if (attempt) {
          attempt.end = entry.created_at;
          attempt.outcome = "completed";
          if (num(data.status) !== undefined) attempt.httpStatus = num(data.status);
          callFacts(attempt, data);
        } else {
          // A routing task starts and ends in the same instant: one entry records both.
          visits.push({
            task,
            ...(epoch !== undefined ? { epoch } : {}),
            attempts: [{ start: entry.created_at, end: entry.created_at, outcome: "ran" }],
          });
        }
        break;
      }
      case "task.failed": {
        const resolved = justResolved(task);
        if (resolved) {
          // An error outcome of an external task: resolved with that code.
          if (typeof data.code === "string") resolved.code = data.code;
          break;
        }
        let attempt = openAttempt(task);
        if (!attempt) {
          attempt = { start: entry.created_at, outcome: "running" };
          visits.push({ task, attempts: [attempt] });
        }
        attempt.end = entry.created_at;
        // A wait past its deadline fails its visit with the code external.timeout.
        attempt.outcome = data.code === "external.timeout" ? "timed out" : "failed";
        if (typeof data.code === "string") attempt.code = data.code;
        callFacts(attempt, data);
        break;
      }
      case "task.retry_scheduled": {
        const visit = openVisit(task);
        const last = visit?.attempts[visit.attempts.length - 1];
        const wait = num(data.wait_ms);
        if (last && wait !== undefined) {
          last.retryAt = iso(Date.parse(entry.created_at) + wait);
          last.retryNumber = num(data.attempt);
        }
        break;
      }
      case "external.resolved": {
        const attempt = openAttempt(task);
        if (attempt) {
          attempt.end = entry.created_at;
          attempt.outcome = "resolved";
        }
        const visit = openVisit(task);
        if (visit && typeof data.via === "string") visit.via = data.via;
        break;
      }
    }
  }
  return visits;
}

/** The tasks in the order the instance went through them (a task visited twice is listed twice). */
export function pathTaken(visits: readonly Visit[]): string[] {
  return visits.map((v) => v.task);
}
