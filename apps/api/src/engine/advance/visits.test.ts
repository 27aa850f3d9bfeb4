import { describe, expect, it } from "vitest";
import type { InstanceState } from "./instance-state.js";
import { recordVisit, type VisitRecord } from "./visits.js";

const state = (outputs: InstanceState["outputs"], error?: InstanceState["_error"]): InstanceState => ({
  input: {},
  outputs,
  _children: { spawn: "c-1" },
  ...(error === undefined ? {} : { _error: error }),
});

describe("recordVisit", () => {
  it("records what the task left holds, and the entry's error root", () => {
    const result: { taskEpoch: number; task: string; visits?: VisitRecord[] } = { taskEpoch: 3, task: "b" };
    recordVisit(result, state({ a: { x: 1 } }, { code: "http.500" }), "a", 2, {
      maxRecorded: 10,
      maxRecordBytes: 1024,
    });
    expect(result.visits).toEqual([
      { taskEpoch: 3, task: "b", fromEpoch: 2, fromTask: "a", output: { x: 1 }, error: { code: "http.500" } },
    ]);
    const spawned: { taskEpoch: number; task: string; visits?: VisitRecord[] } = { taskEpoch: 4, task: "c" };
    recordVisit(spawned, state({}), "spawn", 3, { maxRecorded: 10, maxRecordBytes: 1024 });
    expect(spawned.visits).toEqual([{ taskEpoch: 4, task: "c", fromEpoch: 3, fromTask: "spawn", children: "c-1" }]);
  });

  it("keeps no values past the byte bound, and records nothing past the entry bound", () => {
    const result: { taskEpoch: number; task: string; visits?: VisitRecord[] } = { taskEpoch: 3, task: "b" };
    recordVisit(result, state({ a: "x".repeat(100) }), "a", 2, { maxRecorded: 10, maxRecordBytes: 50 });
    expect(result.visits).toEqual([{ taskEpoch: 3, task: "b", fromEpoch: 2, fromTask: "a", whole: false }]);
    const late: { taskEpoch: number; task: string; visits?: VisitRecord[] } = { taskEpoch: 11, task: "b" };
    recordVisit(late, state({ a: 1 }), "a", 10, { maxRecorded: 10, maxRecordBytes: 1024 });
    expect(late.visits).toBeUndefined();
  });
});
