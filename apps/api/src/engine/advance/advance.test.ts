import type { Json } from "@baton/expr";
import { decodeDefinition, formatProblems } from "@baton/model";
import { describe, expect, it } from "vitest";
import { advance, MAX_ENTRIES_WITHOUT_WAITING, MAX_INLINE_STEPS } from "./advance.js";
import type { AdvanceEnvironment, AdvanceInput } from "./advance-types.js";
import { compileDefinition } from "./compiled-definition.js";
import { configRoot } from "./config-root.js";
import { TaskFailure } from "./task-failure.js";

function compiled(raw: unknown) {
  const decoded = decodeDefinition(raw);
  if (!decoded.ok) throw new Error(formatProblems(decoded.problems));
  return compileDefinition(decoded.definition, 1);
}

function input(task: string, extra: Partial<AdvanceInput> = {}): AdvanceInput {
  return {
    id: "i-1",
    process: "p",
    version: 1,
    task,
    taskEpoch: 1,
    retryCount: 0,
    state: { input: {}, outputs: {}, _children: {} },
    reclaimed: false,
    previousOwner: null,
    ...extra,
  };
}

function env(
  fetch: AdvanceEnvironment["fetch"] = async () => ({ result: { ok: true }, status: 200, headers: {} }),
  config: () => { [k: string]: Json } = () => ({}),
): AdvanceEnvironment {
  return { now: () => 1_000, random: () => 1, config, fetch };
}

const fetchTask = (id: string, extra: object = {}) => ({
  id,
  action: { type: "fetch", url: "http://up.test/x" },
  ...extra,
});

describe("advance", () => {
  it("checkpoints on entering the next action task, with task_epoch + 1 and due at once", async () => {
    const def = compiled({ name: "p", tasks: [fetchTask("a"), { id: "route" }, fetchTask("b")] });
    const result = await advance(def, input("a"), env());
    expect(result).toMatchObject({ status: "running", task: "b", taskEpoch: 3, wakeAt: 1_000, retryCount: 0 });
    expect(result.state.outputs).toEqual({ a: { ok: true } });
    expect([...result.written]).toEqual(["a"]);
  });

  it("raises only_once.interrupted without calling the upstream when reclaimed on an only_once task; uncaught it fails the instance", async () => {
    const def = compiled({ name: "p", tasks: [fetchTask("pay", { only_once: true })] });
    let calls = 0;
    const result = await advance(
      def,
      input("pay", { reclaimed: true, previousOwner: "host:1:abc" }),
      env(async () => {
        calls++;
        return { result: null, status: 200, headers: {} };
      }),
    );
    expect(calls).toBe(0);
    expect(result.status).toBe("failed");
    expect(result.errorCode).toBe("only_once.interrupted");
    expect(result.errorMessage).toMatch(/^task "pay": only_once\.interrupted: /);
    expect(result.logs.map((l) => l.event)).toEqual(["lease.reclaimed", "task.failed", "instance.failed"]);
  });

  it("re-runs an ordinary task after a reclaim", async () => {
    const def = compiled({ name: "p", tasks: [fetchTask("call")] });
    const result = await advance(def, input("call", { reclaimed: true, previousOwner: "w" }), env());
    expect(result.status).toBe("completed");
  });

  it("keeps the same task epoch and schedules the wait on a retry", async () => {
    const def = compiled({
      name: "p",
      tasks: [fetchTask("call", { on_error: [{ code: ["http.5%"], retry: { retries: 2, delay: "4s" } }] })],
    });
    const result = await advance(
      def,
      input("call", { taskEpoch: 7 }),
      env(async () => {
        throw new TaskFailure("http.502", "bad gateway");
      }),
    );
    expect(result).toMatchObject({
      status: "running",
      task: "call",
      taskEpoch: 7,
      retryCount: 1,
      wakeAt: 1_000 + 4_000,
    });
  });

  it("fails with engine.config when a required config setting is missing, and reads it from the environment", async () => {
    const raw = {
      name: "cfg",
      config_schema: {
        type: "object",
        properties: { region: { type: "string" }, limit: { type: "integer", default: 5 } },
        required: ["region"],
      },
      tasks: [{ id: "r", output: { region: "$: config.region", limit: "$: config.limit" } }],
    };
    const def = compiled(raw);
    const missing = await advance(
      def,
      input("r"),
      env(undefined, () => configRoot(def.definition, {})),
    );
    expect(missing.status).toBe("failed");
    expect(missing.errorCode).toBe("engine.config");
    expect(missing.errorMessage).toContain("BATON_CFG_REGION");
    const set = await advance(
      def,
      input("r"),
      env(undefined, () => configRoot(def.definition, { BATON_GLOBAL_REGION: "eu", BATON_CFG_LIMIT: "9" })),
    );
    expect(set.state.outputs.r).toEqual({ region: "eu", limit: 9 });
  });

  it("fails with engine.expression when the process output faults, naming the last task", async () => {
    const def = compiled({
      name: "p",
      input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      tasks: [{ id: "last", output: "$: input.n" }],
      output: "$: 1 / outputs.last",
    });
    const result = await advance(def, input("last", { state: { input: { n: 0 }, outputs: {}, _children: {} } }), env());
    expect(result.status).toBe("failed");
    expect(result.errorCode).toBe("engine.expression");
    expect(result.errorMessage).toMatch(/^task "last": engine\.expression: process output: /);
  });

  it("fails with engine.definition when the instance sits on a task the definition does not have", async () => {
    const def = compiled({ name: "p", tasks: [{ id: "a" }] });
    const result = await advance(def, input("gone"), env());
    expect(result.errorCode).toBe("engine.definition");
    expect(result.errorMessage).toContain('no task "gone"');
  });
});

describe("advance through wait tasks", () => {
  const waits = () =>
    compiled({
      name: "p",
      tasks: [
        {
          id: "ask",
          action: { type: "external", timeout: { for: "10s" } },
          raises: { no: null },
          on_error: [{ code: "no", goto: "$after" }],
        },
        { id: "after", action: { type: "delay", for: "5s" } },
      ],
    });

  it("arming an external task parks: running, phase external, wake_at at the deadline, a claim row to write", async () => {
    const result = await advance(waits(), input("ask"), env());
    expect(result).toMatchObject({ status: "running", task: "ask", taskEpoch: 1, wakeAt: 11_000, phase: "external" });
    expect(result.externalWait).toEqual({ task: "ask", taskEpoch: 1, input: {}, since: 1_000, deadline: 11_000 });
  });

  it("a recorded error outcome routes through on_error like a failed fetch, then parks on the delay (no phase)", async () => {
    const state = {
      input: {},
      outputs: {},
      _children: {},
      _wait: { task: "ask", task_epoch: 1 },
      _outcome: { task_epoch: 1, error: { code: "no", message: "nope" } },
    };
    const result = await advance(waits(), input("ask", { state }), env());
    expect(result).toMatchObject({ status: "running", task: "after", taskEpoch: 2, wakeAt: 1_000 });
    expect(result.state._error, "the goto target sees error").toMatchObject({
      task: "ask",
      code: "no",
      message: "nope",
    });
    expect(result.externalWait, "the external park is over").toBe("clear");
    const parked = await advance(waits(), input("after", { taskEpoch: 2, state: result.state }), env());
    expect(parked).toMatchObject({ status: "running", task: "after", wakeAt: 6_000 });
    expect(parked.phase ?? null).toBeNull();
  });
});

// Audit, session 8 (docs/limits.md): a routing loop whose condition is always true ran forever,
// 34,000 task entries (and log lines) a second, checkpointing every 1,000; a `delay` of 0 in the
// loop checkpointed too. The entries are counted across checkpoints until the instance waits
// or calls out, and past the bound it fails with engine.limit.
describe("a loop that never waits", () => {
  const spin = (extra: object[] = []) =>
    compiled({
      name: "p",
      tasks: [
        { id: "a", output: { n: "$: (self.previous.n ?? 0) + 1" } },
        ...extra,
        { id: "b", switch: [{ case: "outputs.a.n > 0", goto: "$a" }, { goto: "end" }] },
      ],
    });

  /** Runs advances from `task` the way the pump does, each from the state the last one left. */
  async function runUntilSettled(def: ReturnType<typeof compiled>, task: string, fetch?: AdvanceEnvironment["fetch"]) {
    let at = input(task);
    // Bounded, so a regression fails the assertions below instead of looping forever.
    for (let advances = 1; ; advances++) {
      const result = await advance(def, at, env(fetch));
      if (result.status !== "running" || result.wakeAt !== 1_000 || advances === MAX_ENTRIES_WITHOUT_WAITING)
        return { result, advances };
      at = { ...at, task: result.task, taskEpoch: result.taskEpoch, state: result.state };
    }
  }

  it("fails with engine.limit once it has entered the most tasks allowed without waiting, across checkpoints", async () => {
    const { result, advances } = await runUntilSettled(spin(), "a");
    expect(result.status).toBe("failed");
    expect(result.errorCode).toBe("engine.limit");
    expect(result.errorMessage).toBe(
      `task "a": engine.limit: the instance entered ${MAX_ENTRIES_WITHOUT_WAITING} tasks in a row without waiting or calling out (a loop that never waits); the most allowed is ${MAX_ENTRIES_WITHOUT_WAITING} (--limit-entries-without-waiting)`,
    );
    expect(advances).toBe(MAX_ENTRIES_WITHOUT_WAITING / MAX_INLINE_STEPS);
    expect(result.state.outputs.a).toEqual({ n: MAX_ENTRIES_WITHOUT_WAITING / 2 });
  });

  it("fails at --limit-entries-without-waiting when the server sets it lower", async () => {
    const def = spin();
    let at = input("a");
    let result = await advance(def, at, { ...env(), maxEntriesWithoutWaiting: 2 * MAX_INLINE_STEPS });
    for (let advances = 1; result.status === "running" && advances < 10; advances++) {
      at = { ...at, task: result.task, taskEpoch: result.taskEpoch, state: result.state };
      result = await advance(def, at, { ...env(), maxEntriesWithoutWaiting: 2 * MAX_INLINE_STEPS });
    }
    expect(result.errorCode).toBe("engine.limit");
    expect(result.errorMessage).toContain(
      `the most allowed is ${2 * MAX_INLINE_STEPS} (--limit-entries-without-waiting)`,
    );
  });

  it("counts a delay that moves on at once as not waiting", async () => {
    const { result } = await runUntilSettled(spin([{ id: "d", action: { type: "delay", for: "0s" } }]), "a");
    expect(result.errorCode).toBe("engine.limit");
  });

  it("starts counting again after a call out, so a loop that calls out each round is not bounded", async () => {
    const def = spin([fetchTask("f")]);
    let calls = 0;
    const fetch: AdvanceEnvironment["fetch"] = async () => {
      calls++;
      return { result: { ok: true }, status: 200, headers: {} };
    };
    let at = input("a");
    for (let i = 0; i < 2 * MAX_ENTRIES_WITHOUT_WAITING; i++) {
      const result = await advance(def, at, env(fetch));
      expect(result.status).toBe("running");
      expect(result.state._entries, "nothing carried past a call out").toBeUndefined();
      at = { ...at, task: result.task, taskEpoch: result.taskEpoch, state: result.state };
      if (calls > 100) break;
    }
    expect(calls).toBeGreaterThan(100);
  });
});
