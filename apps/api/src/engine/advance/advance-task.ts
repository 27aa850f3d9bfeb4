import { evaluateShape, type Json, LIMITS_KEY, type Scope } from "@baton/expr";
import { iso } from "../../format.js";
import { AdvanceAbandoned } from "./abandoned.js";
import { type Decision, decide } from "./advance-steps.js";
import type { AdvanceEnvironment, AdvanceLog, AdvanceResult, AdvanceRun } from "./advance-types.js";
import type { CompiledTask } from "./compiled-definition.js";
import type { InstanceState } from "./instance-state.js";
import { callData, type FetchCall, TaskFailure } from "./task-failure.js";
import { MAX_CHILDREN_PER_SPAWN, runChildren } from "./tasks/child.js";
import { runWait } from "./tasks/wait.js";

// One task of an advance (advance.ts): its action (a wait, children, or a fetch), then its
// output and switch. Either the advance stops at the action (a park, children spawned), or the
// task decides where to go, or it failed and advance.ts routes the failure.

/** What an action leaves: the advance's result when it stops here, else `self` (and the fetch made). */
export type ActionStep = { stop: AdvanceResult } | { self: { [key: string]: Json }; call?: FetchCall };

/** The scope a task's expressions see, with `self`. */
export function scopeOf(run: AdvanceRun, self: { [key: string]: Json }): Scope {
  return {
    input: run.state.input,
    outputs: run.state.outputs,
    self,
    error: run.state._error ?? null,
    config: run.config ?? {},
    $now: run.env.now(),
    [LIMITS_KEY]: run.limits,
  };
}

/** Runs `here`'s action, if it has one; a routing task goes straight on with `self` = { previous }. */
export async function runAction(run: AdvanceRun, here: CompiledTask, previous: Json): Promise<ActionStep> {
  if (here.task.action === undefined) return { self: { previous } };
  run.ranAction = true;
  switch (here.task.action.type) {
    case "external":
    case "delay": {
      const step = await runWaitStep(here, run.state, run.result, run.env, scopeOf(run, { previous }), run.log);
      if (step.kind === "park") return { stop: run.result };
      return { self: { result: step.result, previous } };
    }
    case "child":
    case "child_map":
    case "child_list":
      return runChildTask(run, here, previous);
    default:
      return runFetchTask(run, here, previous);
  }
}

async function runChildTask(run: AdvanceRun, here: CompiledTask, previous: Json): Promise<ActionStep> {
  const { result, env } = run;
  const id = here.task.id;
  if (env.children === undefined)
    throw new TaskFailure("engine.definition", `child tasks cannot run here (task "${id}")`);
  const step = await runChildren(here, run.state, {
    taskEpoch: result.taskEpoch,
    scope: scopeOf(run, { previous }),
    defs: run.def.definition.$defs,
    env: env.children,
    maxChildren: env.maxChildrenPerVisit ?? MAX_CHILDREN_PER_SPAWN,
  });
  if (step.kind === "spawned" || step.started === true) {
    const count = step.kind === "spawned" ? step.spawns.length : 0;
    run.log(
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
    return { stop: result };
  }
  return { self: { result: step.result, previous } };
}

async function runFetchTask(run: AdvanceRun, here: CompiledTask, previous: Json): Promise<ActionStep> {
  const { result, env } = run;
  const id = here.task.id;
  run.log("info", "task.started", `task "${id}" started (${here.task.action!.type})`, id, {
    task_epoch: result.taskEpoch,
    worker: env.worker ?? null,
  });
  if (here.fetch === undefined) {
    throw new TaskFailure(
      "engine.definition",
      `action type "${here.task.action!.type}" is not supported by this engine yet`,
    );
  }
  run.calledOut = true;
  const response = await env.fetch(here, scopeOf(run, { previous }), result.taskEpoch);
  return {
    self: { result: response.result, status: response.status, headers: response.headers, previous },
    call: response.call,
  };
}

/** What one task did: stopped the advance, decided where to go, or failed (with the fetch it made). */
export type TaskStep = { stop: AdvanceResult } | { decision: Decision } | { failed: unknown; call?: FetchCall };

/** Runs one task: its action, then its output and switch; a failure is returned for routing. */
export async function runTask(
  run: AdvanceRun,
  here: CompiledTask,
  pending: TaskFailure | undefined,
): Promise<TaskStep> {
  const id = here.task.id;
  const previous = run.state.outputs[id] ?? null;
  // The fetch this step made, for its task.completed or task.failed entry.
  let call: FetchCall | undefined;
  try {
    run.config ??= run.env.config();
    if (pending !== undefined) throw pending;
    const acted = await runAction(run, here, previous);
    if ("stop" in acted) return acted;
    call = acted.call;
    return { decision: finishTask(run, here, acted.self, call) };
  } catch (error) {
    if (error instanceof AdvanceAbandoned) throw error;
    return { failed: error, call };
  }
}

/** A task's output stored, its switch decided and its task.completed line logged. */
function finishTask(
  run: AdvanceRun,
  here: CompiledTask,
  self: { [key: string]: Json },
  call: FetchCall | undefined,
): Decision {
  const { state, result } = run;
  const id = here.task.id;
  const isAction = here.task.action !== undefined;
  let output: Json | undefined;
  if (here.output !== undefined) output = evaluateShape(here.output, scopeOf(run, self));
  else if (isAction) output = self.result;
  if (output !== undefined) {
    state.outputs[id] = output;
    result.written.add(id);
  }
  const scope = scopeOf(run, { ...self, output: output ?? null });
  const decision = decide(here, scope, run.def);
  // A routing task starts and ends in the same instant: one entry records both.
  if (isAction)
    run.log("info", "task.completed", `task "${id}" completed`, id, { status: self.status ?? null, ...callData(call) });
  else run.log("debug", "task.completed", `routing task "${id}" ran`, id, { task_epoch: result.taskEpoch });
  return decision;
}

/** Runs a wait task's visit (tasks/wait.ts) and records a park on the result. */
async function runWaitStep(
  here: CompiledTask,
  state: InstanceState,
  result: AdvanceResult,
  env: AdvanceEnvironment,
  scope: Scope,
  log: AdvanceLog,
) {
  const id = here.task.id;
  const wasWaiting = state._wait !== undefined && here.task.action!.type === "external";
  try {
    const step = await runWait(here, state, {
      taskEpoch: result.taskEpoch,
      now: env.now(),
      scope,
      peekSignal: env.peekSignal === undefined ? undefined : (task) => env.peekSignal!(task),
    });
    if (step.kind === "park") {
      result.status = "running";
      result.wakeAt = step.wakeAt;
      result.phase = step.phase;
      if (step.external !== undefined) {
        result.externalWait = step.external;
        log("info", "task.started", `task "${id}" started (external): waiting for a worker or a signal`, id, {
          task_epoch: result.taskEpoch,
          deadline: step.wakeAt,
        });
      } else if (step.armed && step.wakeAt !== null) {
        log("info", "task.started", `task "${id}" started (delay) until ${iso(step.wakeAt)}`, id, {
          task_epoch: result.taskEpoch,
          wake_at: step.wakeAt,
        });
      }
      return step;
    }
    if (step.consumedSignal !== undefined) result.consumedSignal = step.consumedSignal;
    return step;
  } finally {
    if (wasWaiting && state._wait === undefined) result.externalWait = "clear";
  }
}
