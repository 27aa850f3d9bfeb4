import type { LogEntry } from "@baton/actions";
import { describe, expect, it } from "vitest";
import { buildTimeline, formatDuration, pathTaken } from "./timeline.js";

let n = 0;
function entry(event: string, task: string | null, second: number, data: LogEntry["data"] = {}): LogEntry {
  n += 1;
  return {
    id: `e${n}`,
    instance_id: "i",
    level: "info",
    event,
    message: event,
    task,
    actor: null,
    data,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
  };
}

describe("buildTimeline", () => {
  it("keeps automatic retries in one visit, with their retry times and the final HTTP status", () => {
    const visits = buildTimeline([
      entry("instance.started", "a", 0),
      entry("task.completed", "a", 0, { task_epoch: 1 }),
      entry("task.started", "b", 1, { task_epoch: 1, worker: "w1" }),
      entry("task.failed", "b", 2, { code: "http.503", host: "pay.example:8443", latency_ms: 812 }),
      entry("task.retry_scheduled", "b", 2, { code: "http.503", attempt: 1, wait_ms: 3000 }),
      entry("task.started", "b", 5, { task_epoch: 1 }),
      entry("task.completed", "b", 6, { status: 200 }),
      entry("instance.completed", "b", 6),
    ]);
    expect(visits.map((v) => [v.task, v.attempts.map((a) => a.outcome)])).toEqual([
      ["a", ["ran"]],
      ["b", ["failed", "completed"]],
    ]);
    const [failed, done] = visits[1]!.attempts;
    expect(failed).toMatchObject({
      code: "http.503",
      worker: "w1",
      retryNumber: 1,
      retryAt: "2026-01-01T00:00:05.000Z",
    });
    expect(done).toMatchObject({ httpStatus: 200, end: "2026-01-01T00:00:06.000Z" });
  });

  it("opens a new visit when an operator retries or the route comes back to a task", () => {
    const visits = buildTimeline([
      entry("task.started", "b", 0, { task_epoch: 1 }),
      entry("task.failed", "b", 1, { code: "http.500" }),
      entry("instance.retried", null, 10),
      entry("task.started", "b", 11, { task_epoch: 2 }),
      entry("task.completed", "b", 12, { status: 201 }),
      entry("task.completed", "check", 12, { task_epoch: 1 }),
      entry("task.started", "b", 13, { task_epoch: 3 }),
      entry("task.completed", "b", 14, { status: 200 }),
    ]);
    expect(pathTaken(visits)).toEqual(["b", "b", "check", "b"]);
    expect(visits.map((v) => v.attempts.length)).toEqual([1, 1, 1, 1]);
  });

  it("ends an external wait at its resolution, with the error of an error outcome and the deadline while it waited", () => {
    const visits = buildTimeline([
      entry("task.started", "approve", 0, { task_epoch: 1, deadline: Date.UTC(2026, 0, 1, 1) }),
      entry("external.resolved", "approve", 30, { via: "signal" }),
      entry("task.failed", "approve", 30, { code: "rejected" }),
    ]);
    expect(visits).toHaveLength(1);
    expect(visits[0]).toMatchObject({ via: "signal", deadline: "2026-01-01T01:00:00.000Z" });
    expect(visits[0]!.attempts).toEqual([
      { start: "2026-01-01T00:00:00.000Z", end: "2026-01-01T00:00:30.000Z", outcome: "resolved", code: "rejected" },
    ]);
  });

  it("marks a wait that passed its deadline as timed out", () => {
    const visits = buildTimeline([
      entry("task.started", "approve", 0, { task_epoch: 1, deadline: Date.UTC(2026, 0, 1, 0, 0, 9) }),
      entry("task.failed", "approve", 9, { code: "external.timeout" }),
    ]);
    expect(visits[0]!.attempts[0]).toMatchObject({ outcome: "timed out", code: "external.timeout" });
  });
});

describe("formatDuration", () => {
  it("uses the largest unit that reads well", () => {
    expect([850, 12_345, 245_000, 7_380_000].map(formatDuration)).toEqual([
      "850 ms",
      "12.3 s",
      "4 min 5 s",
      "2 h 3 min",
    ]);
  });
});
