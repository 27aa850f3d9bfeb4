// One advance is one ordered state machine (action, output, switch, next task, with error
// routing at each step): the loop stays here in one piece so the order its steps run in is
// visible; the task kinds live in tasks/, the steps between tasks in advance-steps.ts and the
// shapes it takes and returns in advance-types.ts.
import type { LogLevel } from "@baton/log";
import { evaluateShape, type Json, LIMITS_KEY, type Scope } from "@baton/expr";
import { AdvanceAbandoned } from "./abandoned.js";
import { ChildFailed, isChildTask, MAX_CHILDREN_PER_SPAWN, runChildren } from "./tasks/child.js";
import type { CompiledDefinition, CompiledTask } from "./compiled-definition.js";
import { routeError } from "./error-route.js";
import { truncate } from "../../format.js";
import type { InstanceState } from "./instance-state.js";
import { callData, failureOf, type FetchCall, TaskFailure } from "./task-failure.js";
import { consumedSignalOf, isWaitTask } from "./tasks/wait.js";
import type { AdvanceEnvironment, AdvanceInput, AdvanceResult } from "./advance-types.js";
import { checkpoint, complete, type Decision, decide, enter, runWaitStep, settle } from "./advance-steps.js";

/** Routing-only tasks run inline; a loop of them is checkpointed after this many entries. */
export const MAX_INLINE_STEPS = 1000;

/**
 * Task entries an instance may make in a row without waiting or calling out, counted across
 * the checkpoints of a loop (state `_entries`) and set back by any advance that parks, waits,
 * spawns or calls a fetch (docs/limits.md "Other limits"). A loop whose condition never turns
 * false otherwise ran forever: 34,000 entries and log lines a second.
 */
export const MAX_ENTRIES_WITHOUT_WAITING = 100_000;

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
  const log = (level: LogLevel, event: string, message: string, task: string | null, data?: Record<string, Json>) =>
    result.logs.push({ level, event, message, task, data: data ?? null });

  const fail = (code: string, message: string, task: string) => {
    result.status = "failed";
    result.errorCode = code;
    result.errorMessage = message;
    result.wakeAt = null;
    log("error", "instance.failed", message, task, { code });
    return result;
  };

  let current = def.byId.get(input.task);
  if (current === undefined) {
    return fail(
      "engine.definition",
      `task "${input.task}": engine.definition: process "${def.name}" version ${def.version} has no task "${input.task}"`,
      input.task,
    );
  }

  let pending: TaskFailure | undefined;
  if (input.reclaimed) {
    log(
      "warn",
      "lease.reclaimed",
      `took over from ${input.previousOwner ?? "a previous worker"} whose lease expired`,
      input.task,
      {
        previous_owner: input.previousOwner,
      },
    );
    if (current.task.only_once) {
      pending = new TaskFailure(
        "only_once.interrupted",
        `only_once task "${input.task}" was interrupted (lease of ${input.previousOwner ?? "a previous worker"} expired) and may have run`,
      );
    }
  }

  let config: { [key: string]: Json } | undefined;
  // Every scope carries the limits: each evaluation of it gets a fresh budget of them. The
  // object itself is the runner's, the same on every advance and never changed, so the
  // evaluator reads it once (limitsIn, @baton/expr budget.ts) instead of once per evaluation.
  const limits = env.evalLimits as unknown as Json | undefined;
  const asFailure = (error: unknown) => failureOf(error, env.limitFlag);
  let ranAction = false;
  let calledOut = false;
  const maxEntries = env.maxEntriesWithoutWaiting ?? MAX_ENTRIES_WITHOUT_WAITING;
  // An advance runs at most one action: it stops (checkpoints) on entering the next action task.
  const mustCheckpoint = (target: CompiledTask, steps: number) =>
    (ranAction && target.task.action !== undefined) || steps >= MAX_INLINE_STEPS;
  // A checkpoint of an advance that did not call out (a delay that moved on at once is no
  // wait) carries its entries on; the advance that passes the bound fails instead.
  const loopCheckpoint = (target: CompiledTask, steps: number) => {
    if (!calledOut) {
      const entries = entriesBefore + steps;
      if (entries >= maxEntries)
        return fail(
          "engine.limit",
          `task "${target.task.id}": engine.limit: the instance entered ${entries} tasks in a row without waiting or calling out (a loop that never waits); the most allowed is ${maxEntries} (--limit-entries-without-waiting)`,
          target.task.id,
        );
      state._entries = entries;
    }
    return checkpoint(result, env);
  };
  for (let steps = 1; ; steps++) {
    const here: CompiledTask = current;
    const id = here.task.id;
    const isAction = here.task.action !== undefined;
    const previous = state.outputs[id] ?? null;
    const scope = (self: { [key: string]: Json }): Scope => ({
      input: state.input,
      outputs: state.outputs,
      self,
      error: state._error ?? null,
      config: config ?? {},
      $now: env.now(),
      [LIMITS_KEY]: limits,
    });
    let decision: Decision;
    // The fetch this step made, for its task.completed or task.failed entry.
    let call: FetchCall | undefined;
    try {
      config ??= env.config();
      if (pending !== undefined) {
        const failure = pending;
        pending = undefined;
        throw failure;
      }
      let self: { [key: string]: Json } = { previous };
      if (isAction && isWaitTask(here.task)) {
        ranAction = true;
        const step = await runWaitStep(here, state, result, env, scope({ previous }), log);
        if (step.kind === "park") return result;
        self = { result: step.result, previous };
      } else if (isAction && isChildTask(here.task)) {
        ranAction = true;
        if (env.children === undefined)
          throw new TaskFailure("engine.definition", `child tasks cannot run here (task "${id}")`);
        const step = await runChildren(here, state, {
          taskEpoch: result.taskEpoch,
          scope: scope({ previous }),
          defs: def.definition.$defs,
          env: env.children,
          maxChildren: env.maxChildrenPerVisit ?? MAX_CHILDREN_PER_SPAWN,
        });
        if (step.kind === "spawned" || step.started === true) {
          const count = step.kind === "spawned" ? step.spawns.length : 0;
          log(
            "info",
            "task.started",
            `task "${id}" started (${here.task.action!.type}): ${count} child instance${count === 1 ? "" : "s"}`,
            id,
            {
              task_epoch: result.taskEpoch,
              children: count,
              worker: env.worker ?? null,
            },
          );
        }
        if (step.kind === "spawned") {
          result.status = "running";
          result.wakeAt = null;
          result.phase = "children";
          result.spawns = step.spawns;
          return result;
        }
        self = { result: step.result, previous };
      } else if (isAction) {
        ranAction = true;
        log("info", "task.started", `task "${id}" started (${here.task.action!.type})`, id, {
          task_epoch: result.taskEpoch,
          worker: env.worker ?? null,
        });
        if (here.fetch === undefined) {
          throw new TaskFailure(
            "engine.definition",
            `action type "${here.task.action!.type}" is not supported by this engine yet`,
          );
        }
        calledOut = true;
        const response = await env.fetch(here, scope({ previous }), result.taskEpoch);
        call = response.call;
        self = { result: response.result, status: response.status, headers: response.headers, previous };
      }
      let output: Json | undefined;
      if (here.output !== undefined) output = evaluateShape(here.output, scope(self));
      else if (isAction) output = self.result;
      if (output !== undefined) {
        state.outputs[id] = output;
        result.written.add(id);
      }
      decision = decide(here, scope({ ...self, output: output ?? null }), def);
      // A routing task starts and ends in the same instant: one entry records both.
      if (isAction)
        log("info", "task.completed", `task "${id}" completed`, id, { status: self.status ?? null, ...callData(call) });
      else log("debug", "task.completed", `routing task "${id}" ran`, id, { task_epoch: result.taskEpoch });
    } catch (error) {
      if (error instanceof AdvanceAbandoned) throw error;
      const consumed = consumedSignalOf(error);
      if (consumed !== undefined) result.consumedSignal = consumed;
      const failure = asFailure(error);
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
        return settle(
          result,
          route.kind === "raise" ? "raised" : "failed",
          route.error.code,
          route.error.message,
          id,
          log,
        );
      }
      if (route.kind === "fail") {
        return fail(failure.code, `task "${id}": ${failure.code}: ${failure.message}`, id);
      }
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
          "engine.definition",
          `task "${id}": engine.definition: on_error goto "${route.target}" names no task`,
          id,
        );
      state._error = errorRoot;
      enter(result, target);
      current = target;
      if (mustCheckpoint(target, steps)) return loopCheckpoint(target, steps);
      continue;
    }

    if (decision.kind === "raise" || decision.kind === "panic") {
      return settle(result, decision.kind === "raise" ? "raised" : "failed", decision.code, decision.message, id, log);
    }
    delete state._error;
    if (decision.target === "end") return complete(def, result, state, id, env, log);
    const target = decision.target === "next" ? def.tasks[here.index + 1] : def.byId.get(decision.target.slice(1));
    if (target === undefined) {
      if (decision.target === "next") return complete(def, result, state, id, env, log);
      return fail(
        "engine.definition",
        `task "${id}": engine.definition: switch goto "${decision.target}" names no task`,
        id,
      );
    }
    enter(result, target);
    current = target;
    if (mustCheckpoint(target, steps)) return loopCheckpoint(target, steps);
  }
}
