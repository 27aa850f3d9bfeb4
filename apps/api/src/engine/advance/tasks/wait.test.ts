import type { Scope } from "@baton/expr";
import type { Definition } from "@baton/model";
import { describe, expect, it } from "vitest";
import { compileDefinition } from "../compiled-definition.js";
import { asInstanceState } from "../instance-state.js";
import { TaskFailure } from "../task-failure.js";
import { consumedSignalOf, runWait, type WaitContext } from "./wait.js";

const NOW = Date.UTC(2026, 0, 2, 10, 0, 0);

const def = compileDefinition(
  {
    name: "waits",
    tasks: [
      {
        id: "ask",
        action: { type: "external", input: { n: "$: input.n" }, timeout: { for: "1m" } },
        raises: { no: null },
      },
      { id: "open", action: { type: "external" } },
      { id: "nap", action: { type: "delay", for: "$: input.ms" } },
      { id: "past", action: { type: "delay", until: "2000-01-01T00:00:00Z" } },
    ],
  } as unknown as Definition,
  1,
);
const task = (id: string) => def.byId.get(id)!;
const state = (extra: Record<string, unknown> = {}) =>
  asInstanceState({ input: { n: 7, ms: 250 }, outputs: {}, _children: {}, ...extra } as never);
const ctx = (over: Partial<WaitContext> = {}): WaitContext => ({
  taskEpoch: 3,
  now: NOW,
  scope: { input: { n: 7, ms: 250 }, outputs: {}, self: {}, error: null, config: {}, $now: NOW } as Scope,
  ...over,
});

describe("runWait", () => {
  it("arms an external task: evaluates input, parks with its deadline and records the visit", async () => {
    const s = state();
    const step = await runWait(task("ask"), s, ctx());
    expect(step).toEqual({
      kind: "park",
      wakeAt: NOW + 60_000,
      phase: "external",
      armed: true,
      external: { task: "ask", taskEpoch: 3, input: { n: 7 }, since: NOW, deadline: NOW + 60_000 },
    });
    expect(s._wait).toEqual({ task: "ask", task_epoch: 3, since: NOW, deadline: NOW + 60_000 });
  });

  it("an external task without timeout parks with no wake_at and input {}", async () => {
    const step = await runWait(task("open"), state(), ctx());
    expect(step).toMatchObject({ kind: "park", wakeAt: null, external: { input: {}, deadline: null } });
  });

  it("raises external.timeout once the deadline of the armed visit passed", async () => {
    const s = state({ _wait: { task: "ask", task_epoch: 3, since: NOW, deadline: NOW + 60_000 } });
    await expect(runWait(task("ask"), s, ctx({ now: NOW + 60_000 }))).rejects.toMatchObject({
      code: "external.timeout",
    });
    expect(s._wait, "the timed-out park is over").toBeUndefined();
  });

  it("woken before its deadline, it keeps waiting without a new claim row", async () => {
    const s = state({ _wait: { task: "ask", task_epoch: 3, since: NOW, deadline: NOW + 60_000 } });
    expect(await runWait(task("ask"), s, ctx({ now: NOW + 10 }))).toEqual({
      kind: "park",
      wakeAt: NOW + 60_000,
      phase: "external",
    });
  });

  it("a _wait of an earlier visit is ignored: the task arms afresh", async () => {
    const s = state({ _wait: { task: "ask", task_epoch: 2, since: 0, deadline: 1 } });
    const step = await runWait(task("ask"), s, ctx());
    expect(step.kind).toBe("park");
    expect(s._wait).toMatchObject({ task_epoch: 3, since: NOW });
  });

  it("a recorded result of this visit completes the task; one of an earlier visit is dropped", async () => {
    const s = state({ _wait: { task: "ask", task_epoch: 3 }, _outcome: { task_epoch: 3, result: { ok: true } } });
    expect(await runWait(task("ask"), s, ctx())).toEqual({ kind: "done", result: { ok: true } });
    expect(s._outcome).toBeUndefined();
    expect(s._wait).toBeUndefined();
    const stale = state({ _outcome: { task_epoch: 1, result: { ok: true } } });
    expect((await runWait(task("ask"), stale, ctx())).kind).toBe("park");
    expect(stale._outcome).toBeUndefined();
  });

  it("a recorded error outcome throws its code with message and data", async () => {
    const s = state({ _outcome: { task_epoch: 3, error: { code: "no", message: "nope", data: { why: 1 } } } });
    const failure = await runWait(task("ask"), s, ctx()).catch((e) => e);
    expect(failure).toBeInstanceOf(TaskFailure);
    expect(failure).toMatchObject({ code: "no", message: "nope", data: { why: 1 } });
    expect(consumedSignalOf(failure)).toBeUndefined();
  });

  it("arming takes the oldest buffered signal instead of parking, and names it for deletion", async () => {
    const asked: string[] = [];
    const peekSignal = async (t: string) => {
      asked.push(t);
      return { seq: 42, outcome: { result: 5 } };
    };
    expect(await runWait(task("ask"), state(), ctx({ peekSignal }))).toEqual({
      kind: "done",
      result: 5,
      consumedSignal: 42,
    });
    expect(asked).toEqual(["ask"]);
    const failure = await runWait(
      task("ask"),
      state(),
      ctx({ peekSignal: async () => ({ seq: 9, outcome: { error: { code: "no" } } }) }),
    ).catch((e) => e);
    expect(failure.code).toBe("no");
    expect(consumedSignalOf(failure), "an error outcome still consumes its signal").toBe(9);
  });

  it("a delay parks until now + for (an expression of ms), then completes with null", async () => {
    const s = state();
    expect(await runWait(task("nap"), s, ctx())).toEqual({ kind: "park", wakeAt: NOW + 250, phase: null, armed: true });
    expect(await runWait(task("nap"), s, ctx({ now: NOW + 100 }))).toEqual({
      kind: "park",
      wakeAt: NOW + 250,
      phase: null,
    });
    expect(await runWait(task("nap"), s, ctx({ now: NOW + 250 }))).toEqual({ kind: "done", result: null });
  });

  it("a delay until an instant already past moves on at once", async () => {
    expect(await runWait(task("past"), state(), ctx())).toEqual({ kind: "done", result: null });
  });

  it("a delay whose for expression is not a number is an engine.expression fault", async () => {
    const scope = { ...ctx().scope, input: { ms: "soon" } } as Scope;
    await expect(runWait(task("nap"), state(), ctx({ scope }))).rejects.toMatchObject({ code: "engine.expression" });
  });
});
