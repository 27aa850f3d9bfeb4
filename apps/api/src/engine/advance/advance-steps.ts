import { evaluate, evaluateShape, type Json, LIMITS_KEY, type Scope } from "@baton/expr";
import type { CompiledDefinition, CompiledTask } from "./compiled-definition.js";
import { truncate } from "../../format.js";
import type { InstanceState } from "./instance-state.js";
import { failureOf, TaskFailure } from "./task-failure.js";
import { consumedSignalOf } from "./tasks/wait.js";
import type { AdvanceEnvironment, AdvanceLog, AdvanceResult } from "./advance-types.js";

// The steps advance() (advance.ts) takes between tasks: how the loop enters, checkpoints,
// settles and completes, and how a switch decides where to go.

export type Decision =
  | { kind: "goto"; target: string }
  | { kind: "raise"; code: string; message: string }
  | { kind: "panic"; code: string; message: string };

export function enter(result: AdvanceResult, target: CompiledTask): void {
  result.task = target.task.id;
  result.taskEpoch += 1;
  result.retryCount = 0;
}

export function checkpoint(result: AdvanceResult, env: AdvanceEnvironment): AdvanceResult {
  result.status = "running";
  result.wakeAt = env.now();
  return result;
}

export function settle(
  result: AdvanceResult,
  status: "raised" | "failed",
  code: string,
  message: string,
  task: string,
  log: AdvanceLog,
): AdvanceResult {
  result.status = status;
  result.errorCode = code;
  result.errorMessage = message;
  result.wakeAt = null;
  log(
    status === "raised" ? "warn" : "error",
    `instance.${status}`,
    `${status} with ${code}: ${truncate(message, 300)}`,
    task,
    { code },
  );
  return result;
}

export function complete(
  def: CompiledDefinition,
  result: AdvanceResult,
  state: InstanceState,
  task: string,
  env: AdvanceEnvironment,
  log: AdvanceLog,
): AdvanceResult {
  if (def.output !== undefined) {
    try {
      result.output = evaluateShape(def.output, {
        input: state.input,
        outputs: state.outputs,
        config: env.config(),
        $now: env.now(),
        [LIMITS_KEY]: env.evalLimits as unknown as Json | undefined,
      });
    } catch (error) {
      const consumed = consumedSignalOf(error);
      if (consumed !== undefined) result.consumedSignal = consumed;
      const failure = failureOf(error, env.limitFlag);
      const message = `task "${task}": ${failure.code}: process output: ${failure.message}`;
      result.status = "failed";
      result.errorCode = failure.code;
      result.errorMessage = message;
      result.wakeAt = null;
      log("error", "instance.failed", message, task, { code: failure.code });
      return result;
    }
  }
  result.status = "completed";
  result.wakeAt = null;
  log("info", "instance.completed", "completed", task);
  return result;
}

export function decide(here: CompiledTask, scope: Scope, def: CompiledDefinition): Decision {
  if (here.cases.length === 0) return { kind: "goto", target: "next" };
  for (const { condition, clause } of here.cases) {
    if (condition !== undefined) {
      const value = evaluate(condition, scope);
      if (typeof value !== "boolean") {
        throw new TaskFailure(
          "engine.expression",
          `switch case "${clause.case}" evaluated to ${value === null ? "null" : typeof value}, expected a boolean`,
        );
      }
      if (!value) continue;
    }
    if (clause.raise !== undefined) return { kind: "raise", code: clause.raise.code, message: clause.raise.message };
    if (clause.panic !== undefined) return { kind: "panic", code: clause.panic.code, message: clause.panic.message };
    return { kind: "goto", target: clause.goto ?? "next" };
  }
  throw new TaskFailure(
    "engine.definition",
    `no switch case of task "${here.task.id}" matched (process "${def.name}" version ${def.version})`,
  );
}
