import type { LogEntry } from "@baton/actions";
import { LosslessNumber, stringifyJson } from "@baton/expr";
import { describe, expect, it } from "vitest";
import {
  detailView,
  type InstanceRecord,
  listRow,
  logView,
  redactLogView,
  redactView,
  statusView,
  storedOutput,
} from "./instance-view.js";

const T = Date.UTC(2026, 0, 2, 10, 0, 0);

const row = (over: Partial<InstanceRecord> = {}): InstanceRecord => ({
  id: "i1",
  rootId: "i1",
  parentId: null,
  spawnTask: null,
  spawnKey: null,
  parentTaskEpoch: 0,
  pendingChildren: 0,
  process: "p",
  version: 2,
  status: "running",
  phase: null,
  task: "t",
  state: '{"input":{},"outputs":{},"_children":{}}',
  retryCount: 0,
  errorCode: null,
  errorMessage: null,
  output: null,
  wakeAt: T,
  leaseOwner: "w",
  leaseExpiresAt: T + 10_000,
  previousOwner: null,
  leaseEpoch: 3,
  attempts: 0,
  treeSize: 1,
  reservedChildren: 0,
  reservedEpoch: null,
  taskEpoch: 2,
  externalClaimEpoch: 1,
  nextReplayable: false,
  requested: null,
  key: null,
  traceParent: null,
  createdAt: T,
  updatedAt: T + 1500,
  ...over,
});

describe("statusView", () => {
  it("has exactly the documented fields of a running instance (docs/instances.md) plus the key extension, times in ISO 8601 UTC", () => {
    expect(statusView(row())).toEqual({
      id: "i1",
      process: "p",
      version: 2,
      status: "running",
      task: "t",
      retry_count: 0,
      created_at: "2026-01-02T10:00:00.000Z",
      updated_at: "2026-01-02T10:00:01.500Z",
      wake_at: "2026-01-02T10:00:00.000Z",
      key: null,
    });
  });

  it("adds error_code, error_message and output only when they are set", () => {
    const failed = statusView(row({ status: "failed", errorCode: "http.503", errorMessage: "down", retryCount: 2 }));
    expect(failed).toMatchObject({ error_code: "http.503", error_message: "down", retry_count: 2 });
    expect("output" in failed).toBe(false);
    const exact = new LosslessNumber("1.00000000000000000001");
    const done = statusView(row({ status: "completed", output: stringifyJson({ total: exact }) }));
    expect(stringifyJson(done.output), "output numbers stay exact").toBe('{"total":1.00000000000000000001}');
    expect("error_code" in done).toBe(false);
  });

  it("shows the output the caller passes (e.g. with objects spliced back)", () => {
    expect(statusView(row({ output: '{"a":{"$ref":"x"}}' }), { a: 1 }).output).toEqual({ a: 1 });
    expect(storedOutput(row({ output: '{"a":{"$ref":"x"}}' }))).toEqual({ a: { $ref: "x" } });
  });
});

describe("listRow and detailView", () => {
  it("add the tree links (parent_id always present) and phase to a list row", () => {
    expect(listRow(row({ phase: "children" }))).toMatchObject({ parent_id: null, root_id: "i1", phase: "children" });
    expect(listRow(row({ id: "c", parentId: "i1" }))).toMatchObject({ id: "c", parent_id: "i1", root_id: "i1" });
  });

  it("add the state, epochs and objects to the detail, and never the lease internals", () => {
    const view = detailView(row({ parentTaskEpoch: 4 }), {
      state: { input: {} },
      output: undefined,
      objects: [{ path: ["state"], ref: "r", size: 1 }],
    });
    expect(view).toMatchObject({
      state: { input: {} },
      lease_epoch: 3,
      task_epoch: 2,
      parent_task_epoch: 4,
      next_replayable: false,
      external_claim_epoch: 1,
    });
    expect(view.objects).toEqual([{ path: ["state"], ref: "r", size: 1 }]);
    for (const internal of ["lease_owner", "leaseOwner", "wakeAt", "requested", "previous_owner"])
      expect(internal in view, internal).toBe(false);
    // wake_at is shown on purpose (docs/api.md "Timeline"): when the engine next acts by itself.
    expect(view.wake_at).toBe("2026-01-02T10:00:00.000Z");
    expect(detailView(row({ status: "paused" }), { state: {}, output: undefined, objects: [] }).wake_at).toBeNull();
  });
});

describe("logView", () => {
  it("omits data when there is none and parses it losslessly when there is", () => {
    const base = {
      id: "l",
      instanceId: "i1",
      rootId: "i1",
      level: "info",
      event: "instance.started",
      message: "m",
      task: null,
      actor: null,
      createdAt: T,
    };
    expect(logView({ ...base, data: null })).toEqual({
      id: "l",
      instance_id: "i1",
      level: "info",
      event: "instance.started",
      message: "m",
      task: null,
      actor: null,
      created_at: "2026-01-02T10:00:00.000Z",
    });
    expect(stringifyJson(logView({ ...base, data: '{"n":12345678901234567890}' }).data)).toBe(
      '{"n":12345678901234567890}',
    );
  });
});

describe("redactView", () => {
  it("redacts secrets in error_message, output and state, and leaves ids, process and times alone", () => {
    const failed = row({
      id: "i-s3cr3t-0",
      status: "failed",
      errorCode: "http.500",
      errorMessage: 'task "t": http.500: {"error":"bad key s3cr3t"}',
      output: '{"k":"s3cr3t"}',
    });
    const view = detailView(failed, {
      state: { outputs: { t: { token: "Bearer s3cr3t" } } },
      output: { k: "s3cr3t" },
      objects: [],
    });
    const shown = redactView(view, ["s3cr3t"]);
    expect(shown.error_message).toBe('task "t": http.500: {"error":"bad key ***"}');
    expect(shown.output).toEqual({ k: "***" });
    expect(shown.state).toEqual({ outputs: { t: { token: "Bearer ***" } } });
    expect(shown.id, "only instance data is redacted, never identifiers").toBe("i-s3cr3t-0");
    expect(view.state, "the view it was given is not mutated").toEqual({ outputs: { t: { token: "Bearer s3cr3t" } } });
  });

  it("returns the view unchanged when the process has no secrets", () => {
    const view = statusView(row({ output: '{"k":"v"}' }));
    expect(redactView(view, [])).toBe(view);
  });
});

describe("redactLogView", () => {
  it("redacts a log row's message and data", () => {
    const view: LogEntry = {
      id: "l1",
      instance_id: "i1",
      level: "error",
      event: "task.failed",
      message: "key s3cr3t",
      task: "t",
      actor: null,
      data: { body: ["s3cr3t"] },
      created_at: "2026-01-02T10:00:00.000Z",
    };
    expect(redactLogView(view, ["s3cr3t"])).toEqual({ ...view, message: "key ***", data: { body: ["***"] } });
  });
});
