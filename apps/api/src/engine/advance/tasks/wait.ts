import { iso } from "../../../format.js";
import {
  type CompiledShape,
  compileShape,
  evaluate,
  evaluateShape,
  type Expr,
  isLosslessNumber,
  type Json,
  parseExpression,
  type Scope,
} from "@baton/expr";
import { durationTooLong, parseDuration, type Timeout, untilInstant } from "@baton/model";
import type { CompiledTask } from "../compiled-definition.js";
import type { InstanceState } from "../instance-state.js";
import { TaskFailure } from "../task-failure.js";

// `external` and `delay` tasks park the instance instead of holding a worker (docs/language.md#external,
// #delay). The park is recorded in the state so that the advance woken later knows what it is
// resuming: `_wait` (the armed visit: its task_epoch and deadline) and `_outcome` (an answer a
// resolve or signal recorded for that visit). Both are tied to a task_epoch, so leftovers of an
// earlier visit are ignored.

/** A new external park: the row workers claim (external_waits). */
export interface ExternalPark {
  task: string;
  taskEpoch: number;
  input: Json;
  since: number;
  deadline: number | null;
}

/** An outcome a signal buffered before the task armed (signals.seq and its `{result}|{error}`). */
export interface BufferedSignal {
  seq: number;
  outcome: Json;
}

export type WaitStep =
  /** Park: the instance stays running with this wake_at; `armed` on a new visit, `external` when a new claim row is due. */
  | { kind: "park"; wakeAt: number | null; phase: "external" | null; armed?: true; external?: ExternalPark }
  /** The wait is over: the task completes with `result` (`consumedSignal` is deleted with the write). */
  | { kind: "done"; result: Json; consumedSignal?: number };

export interface WaitContext {
  taskEpoch: number;
  now: number;
  scope: Scope;
  /** The oldest buffered signal for this task of this instance. */
  peekSignal?: (task: string) => Promise<BufferedSignal | undefined>;
}

/**
 * One visit of a wait task: consume a recorded outcome, time out, stay parked, or arm (an
 * external task first takes a buffered signal). Throws TaskFailure for an error outcome
 * (`error.data` carried) and for `external.timeout`; both route through on_error.
 */
export async function runWait(here: CompiledTask, state: InstanceState, ctx: WaitContext): Promise<WaitStep> {
  const task = here.task;
  const action = task.action!;
  const recorded = readOutcome(state, ctx.taskEpoch);
  if (recorded !== undefined) {
    delete state._outcome;
    delete state._wait;
    return outcomeStep(task.id, recorded);
  }
  delete state._outcome;
  const wait = readWait(state, ctx.taskEpoch, task.id);
  if (wait !== undefined) {
    if (wait.deadline !== null && ctx.now >= wait.deadline) {
      delete state._wait;
      if (action.type === "delay") return { kind: "done", result: null };
      throw new TaskFailure(
        "external.timeout",
        `no outcome for external task "${task.id}" before its deadline ${iso(wait.deadline)}`,
      );
    }
    // Woken early (a reclaimed lease): keep waiting, claim row untouched.
    return { kind: "park", wakeAt: wait.deadline, phase: action.type === "external" ? "external" : null };
  }
  delete state._wait;

  if (action.type === "delay") {
    const at = instant(action, ctx, `task "${task.id}" delay`);
    if (at <= ctx.now) return { kind: "done", result: null };
    state._wait = { task: task.id, task_epoch: ctx.taskEpoch, since: ctx.now, deadline: at };
    return { kind: "park", wakeAt: at, phase: null, armed: true };
  }
  if (action.type !== "external") throw new TaskFailure("engine.definition", `task "${task.id}" is not a wait task`);

  const buffered = await ctx.peekSignal?.(task.id);
  if (buffered !== undefined) return outcomeStep(task.id, buffered.outcome, buffered.seq);
  const input = action.input === undefined ? {} : evaluateShape(inputShape(here), ctx.scope);
  const timeout = action.timeout;
  const deadline = timeout === undefined ? null : instant(timeout, ctx, `task "${task.id}" timeout`);
  state._wait = { task: task.id, task_epoch: ctx.taskEpoch, since: ctx.now, deadline };
  return {
    kind: "park",
    wakeAt: deadline,
    phase: "external",
    armed: true,
    external: { task: task.id, taskEpoch: ctx.taskEpoch, input, since: ctx.now, deadline },
  };
}

/** A `{result}` outcome completes the task; an `{error}` one throws its authored code. */
function outcomeStep(taskId: string, outcome: Json, consumedSignal?: number): WaitStep {
  const o = (outcome ?? {}) as { [key: string]: Json };
  if (o.error !== undefined && o.error !== null) {
    const error = o.error as { code: string; message?: string; data?: Json };
    const message =
      typeof error.message === "string" ? error.message : `external task "${taskId}" answered ${error.code}`;
    throw Object.assign(new TaskFailure(error.code, message, error.data), { consumedSignal });
  }
  return consumedSignal === undefined
    ? { kind: "done", result: o.result ?? null }
    : { kind: "done", result: o.result ?? null, consumedSignal };
}

/** The signal an error outcome consumed (its TaskFailure carries it so the write deletes it). */
export function consumedSignalOf(error: unknown): number | undefined {
  const seq = (error as { consumedSignal?: unknown } | null)?.consumedSignal;
  return typeof seq === "number" ? seq : undefined;
}

function readOutcome(state: InstanceState, taskEpoch: number): Json | undefined {
  const o = state._outcome as { [key: string]: Json } | undefined;
  if (o === undefined || o === null || typeof o !== "object" || Number(o.task_epoch) !== taskEpoch) return undefined;
  return o;
}

function readWait(state: InstanceState, taskEpoch: number, taskId: string): { deadline: number | null } | undefined {
  const w = state._wait as { [key: string]: Json } | undefined;
  if (w === undefined || w === null || typeof w !== "object" || Number(w.task_epoch) !== taskEpoch || w.task !== taskId)
    return undefined;
  return { deadline: w.deadline === null || w.deadline === undefined ? null : Number(w.deadline) };
}

/** Epoch ms of a `{for}` / `{until, tz?}` from now. */
function instant(spec: Timeout, ctx: WaitContext, what: string): number {
  if (spec.until !== undefined) {
    try {
      return untilInstant(spec.until, spec.tz, ctx.now);
    } catch (error) {
      throw new TaskFailure("engine.definition", `${what}: until: ${(error as Error).message}`);
    }
  }
  if (spec.for === undefined) throw new TaskFailure("engine.definition", `${what}: needs "for" or "until"`);
  return ctx.now + durationMs(spec, spec.for, ctx.scope, what);
}

// Parsed `$:` durations, kept with the definition object they come from (never by their text:
// a map of every source any definition held would grow for the life of the process).
const expressions = new WeakMap<Timeout, Expr>();

/** `value` is `spec.for`. */
function durationMs(spec: Timeout, value: string | number, scope: Scope, what: string): number {
  if (typeof value === "string" && value.trimStart().startsWith("$:")) {
    let expr = expressions.get(spec);
    if (expr === undefined) {
      expr = parseExpression(value.trimStart().slice(2));
      expressions.set(spec, expr);
    }
    const result = evaluate(expr, scope);
    const ms = typeof result === "number" ? result : isLosslessNumber(result) ? Number(String(result)) : Number.NaN;
    if (!Number.isFinite(ms) || ms < 0)
      throw new TaskFailure(
        "engine.expression",
        `${what}: "for" evaluated to ${JSON.stringify(result)}, expected a number of milliseconds`,
      );
    const tooLong = durationTooLong(ms);
    if (tooLong !== undefined)
      throw new TaskFailure("engine.limit", `${what}: "for" evaluated to ${ms} ms, which ${tooLong}`);
    return Math.round(ms);
  }
  try {
    return parseDuration(value);
  } catch (error) {
    throw new TaskFailure("engine.definition", `${what}: for: ${(error as Error).message}`);
  }
}

const inputShapes = new WeakMap<CompiledTask, CompiledShape>();

function inputShape(here: CompiledTask): CompiledShape {
  let shape = inputShapes.get(here);
  if (shape === undefined) {
    const action = here.task.action as { input?: Json };
    const path = `tasks[${here.index}] ("${here.task.id}").action.input`;
    try {
      shape = compileShape(action.input as Json, path);
    } catch (error) {
      throw new TaskFailure("engine.definition", `${path}: ${(error as Error).message}`);
    }
    inputShapes.set(here, shape);
  }
  return shape;
}
