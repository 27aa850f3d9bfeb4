// One advance is one ordered state machine (action, output, switch, next task, with error
// routing at each step): the loop in advance() shows the order its steps run in, each step a
// named function below; one task (action, output, switch) is advance-task.ts, the task kinds live in tasks/,
// the steps between tasks in advance-steps.ts and the shapes it takes and returns in
// advance-types.ts.
import type { Json } from "@baton/expr";
import { ChildFailed } from "./tasks/child.js";
import type { CompiledDefinition, CompiledTask } from "./compiled-definition.js";
import { routeError } from "./error-route.js";
import { truncate } from "../../format.js";
import type { InstanceState } from "./instance-state.js";
import { callData, failureOf, type FetchCall, TaskFailure } from "./task-failure.js";
import { consumedSignalOf } from "./tasks/wait.js";
import type { AdvanceEnvironment, AdvanceInput, AdvanceResult, AdvanceRun } from "./advance-types.js";
import { runTask } from "./advance-task.js";
import { checkpoint, complete, type Decision, enter, settle } from "./advance-steps.js";
import { recordVisit } from "./visits.js";

/** Routing-only tasks run inline; a loop of them is checkpointed after this many entries. */
export const MAX_INLINE_STEPS = 1000;

/**
 * Task entries an instance may make in a row without waiting or calling out, counted across
 * the checkpoints of a loop (state `_entries`) and set back by any advance that parks, waits,
 * spawns or calls a fetch (docs/limits.md "Other limits"). A loop whose condition never turns
 * false otherwise ran forever: 34,000 entries and log lines a second.
 */
export const MAX_ENTRIES_WITHOUT_WAITING = 100_000;

/** Task epochs of one instance the visit journal records (--limit-visits-recorded, visits.ts). */
export const MAX_VISITS_RECORDED = 10_000;
/** Characters of one visit record's values (--limit-visit-record-bytes, visits.ts). */
export const MAX_VISIT_RECORD_BYTES = 1024 * 1024;

/**
 * One advance (docs/engine.md#one-advance): run the current task's action, evaluate its output and switch, and
 * continue inline through routing-only tasks until the next action task (the checkpoint), a
 * retry wait, or a settled result. Pure apart from `env.fetch`: the caller persists the result.
 */
export async function advance(
  def: CompiledDefinition,
  input: AdvanceInput,
  env: AdvanceEnvironment,
): Promise<AdvanceResult> {
  const run = begin(def, input, env);
  let current = def.byId.get(input.task);
  if (current === undefined) {
    return fail(
      run,
      "engine.definition",
      `task "${input.task}": engine.definition: process "${def.name}" version ${def.version} has no task "${input.task}"`,
      input.task,
    );
  }
  let pending = reclaimedFailure(run, input, current);
  for (let steps = 1; ; steps++) {
    const here: CompiledTask = current;
    const step = await runTask(run, here, pending);
    pending = undefined;
    if ("stop" in step) return step.stop;
    const next = "failed" in step ? routeFailure(run, here, step.failed, step.call) : follow(run, here, step.decision);
    if (!("target" in next)) return next;
    const fromEpoch = run.result.taskEpoch;
    enter(run.result, next.target);
    recordVisit(run.result, run.state, here.task.id, fromEpoch, {
      maxRecorded: env.maxVisitsRecorded ?? MAX_VISITS_RECORDED,
      maxRecordBytes: env.maxVisitRecordBytes ?? MAX_VISIT_RECORD_BYTES,
    });
    current = next.target;
    if (mustCheckpoint(run, next.target, steps)) return loopCheckpoint(run, next.target, steps);
  }
}

/** The run of an advance from its input: the state copied, the result at the input's task. */
function begin(def: CompiledDefinition, input: AdvanceInput, env: AdvanceEnvironment): AdvanceRun {
  const state: InstanceState = { ...input.state, outputs: { ...input.state.outputs } };
  // Kept only by a checkpoint of an advance that neither waited nor called out (loopCheckpoint).
  const entriesBefore = typeof state._entries === "number" ? state._entries : 0;
  delete state._entries;
  const result: AdvanceResult = {
    status: "running",
    task: input.task,
    taskEpoch: input.taskEpoch,
    retryCount: input.retryCount,
    state,
    written: new Set(),
    errorCode: null,
    errorMessage: null,
    wakeAt: null,
    logs: [],
  };
  return {
    def,
    env,
    state,
    result,
    log: (level, event, message, task, data) => result.logs.push({ level, event, message, task, data: data ?? null }),
    // Every scope carries the limits: each evaluation of it gets a fresh budget of them.
    limits: env.evalLimits as unknown as Json | undefined,
    entriesBefore,
    ranAction: false,
    calledOut: false,
  };
}

/** Fails the instance at `task` with `code` and its instance.failed line. */
function fail(run: AdvanceRun, code: string, message: string, task: string): AdvanceResult {
  const { result } = run;
  result.status = "failed";
  result.errorCode = code;
  result.errorMessage = message;
  result.wakeAt = null;
  run.log("error", "instance.failed", message, task, { code });
  return result;
}

/**
 * A reclaimed row (its last lease expired without a write) is logged as taken over; its
 * only_once task fails with only_once.interrupted instead of running again.
 */
function reclaimedFailure(run: AdvanceRun, input: AdvanceInput, current: CompiledTask): TaskFailure | undefined {
  if (!input.reclaimed) return undefined;
  run.log(
    "warn",
    "lease.reclaimed",
    `took over from ${input.previousOwner ?? "a previous worker"} whose lease expired`,
    input.task,
    {
      previous_owner: input.previousOwner,
    },
  );
  if (!current.task.only_once) return undefined;
  return new TaskFailure(
    "only_once.interrupted",
    `only_once task "${input.task}" was interrupted (lease of ${input.previousOwner ?? "a previous worker"} expired) and may have run`,
  );
}

/** Where a failed task leads (docs/language.md#on-error): a retry wait, a settled result, or the next task. */
function routeFailure(
  run: AdvanceRun,
  here: CompiledTask,
  error: unknown,
  call: FetchCall | undefined,
): AdvanceResult | { target: CompiledTask } {
  const { def, env, state, result, log } = run;
  const id = here.task.id;
  const consumed = consumedSignalOf(error);
  if (consumed !== undefined) result.consumedSignal = consumed;
  const failure = failureOf(error, env.limitFlag);
  log(
    failure.code.startsWith("engine.") ? "error" : "warn",
    "task.failed",
    `task "${id}" failed: ${failure.code}: ${truncate(failure.message, 300)}`,
    id,
    // A fetch that failed, or one whose output or switch then failed.
    { code: failure.code, ...callData((error instanceof TaskFailure ? error.call : undefined) ?? call) },
  );
  // engine.* codes and failed children are never caught (docs/language.md#on-error, #children).
  const route =
    failure.code.startsWith("engine.") || failure instanceof ChildFailed
      ? ({ kind: "fail" } as const)
      : routeError(here.task, failure.code, result.retryCount, env.random);
  if (route.kind === "retry") {
    result.retryCount = route.attempt;
    result.wakeAt = env.now() + route.waitMs;
    log(
      "info",
      "task.retry_scheduled",
      `task "${id}" retry ${route.attempt} of ${route.rule.retry!.retries} in ${route.waitMs} ms`,
      id,
      {
        code: failure.code,
        attempt: route.attempt,
        wait_ms: route.waitMs,
      },
    );
    return result;
  }
  if (route.kind === "raise" || route.kind === "panic") {
    return settle(result, route.kind === "raise" ? "raised" : "failed", route.error.code, route.error.message, id, log);
  }
  if (route.kind === "fail") return fail(run, failure.code, `task "${id}": ${failure.code}: ${failure.message}`, id);
  const errorRoot: { [key: string]: Json } = { task: id, code: failure.code, message: failure.message };
  if (failure.data !== undefined) errorRoot.data = failure.data;
  Object.assign(errorRoot, failure.context);
  if (route.target === "end") {
    delete state._error;
    return complete(def, result, state, id, env, log);
  }
  const target = def.byId.get(route.target.slice(1));
  if (target === undefined)
    return fail(
      run,
      "engine.definition",
      `task "${id}": engine.definition: on_error goto "${route.target}" names no task`,
      id,
    );
  state._error = errorRoot;
  return { target };
}

/** Where a decided switch leads: a settled result, completion, or the next task. */
function follow(run: AdvanceRun, here: CompiledTask, decision: Decision): AdvanceResult | { target: CompiledTask } {
  const { def, env, state, result, log } = run;
  const id = here.task.id;
  if (decision.kind === "raise" || decision.kind === "panic") {
    return settle(result, decision.kind === "raise" ? "raised" : "failed", decision.code, decision.message, id, log);
  }
  delete state._error;
  if (decision.target === "end") return complete(def, result, state, id, env, log);
  const target = decision.target === "next" ? def.tasks[here.index + 1] : def.byId.get(decision.target.slice(1));
  if (target === undefined) {
    if (decision.target === "next") return complete(def, result, state, id, env, log);
    return fail(
      run,
      "engine.definition",
      `task "${id}": engine.definition: switch goto "${decision.target}" names no task`,
      id,
    );
  }
  return { target };
}

/** An advance runs at most one action: it stops (checkpoints) on entering the next action task. */
function mustCheckpoint(run: AdvanceRun, target: CompiledTask, steps: number): boolean {
  return (run.ranAction && target.task.action !== undefined) || steps >= MAX_INLINE_STEPS;
}

/**
 * A checkpoint of an advance that did not call out (a delay that moved on at once is no wait)
 * carries its entries on; the advance that passes the bound fails instead.
 */
function loopCheckpoint(run: AdvanceRun, target: CompiledTask, steps: number): AdvanceResult {
  if (!run.calledOut) {
    const entries = run.entriesBefore + steps;
    const maxEntries = run.env.maxEntriesWithoutWaiting ?? MAX_ENTRIES_WITHOUT_WAITING;
    if (entries >= maxEntries)
      return fail(
        run,
        "engine.limit",
        `task "${target.task.id}": engine.limit: the instance entered ${entries} tasks in a row without waiting or calling out (a loop that never waits); the most allowed is ${maxEntries} (--limit-entries-without-waiting)`,
        target.task.id,
      );
    run.state._entries = entries;
  }
  return checkpoint(run.result, run.env);
}
