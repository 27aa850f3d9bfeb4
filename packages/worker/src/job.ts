// One claimed task: run the handler, then resolve, raise or release (docs/worker.md "Outcomes").
import { ApiError } from "@baton/actions";
import type { WorkerCalls } from "./calls.js";
import { withRetry } from "./retry.js";
import { withHandlerSpan } from "./tracing.js";
import type { ExternalTask, Handler, Raised, StopReason, TaskTypes, WorkerEvent } from "./types.js";

/** The `reason` of a handler's aborted signal. */
export class TaskStopped extends Error {
  override readonly name = "TaskStopped";
  readonly reason: StopReason;
  constructor(reason: StopReason) {
    super(
      reason === "lost"
        ? "the claim was lost: another worker may hold the task now"
        : reason === "cancelled"
          ? "the instance no longer wants this task"
          : "the worker is shutting down",
    );
    this.reason = reason;
  }
}

/** An error outcome for `code`, to return from a handler (also `context.raise`). */
export function raise<Code extends string, Data = unknown>(
  code: Code,
  options: { message?: string; data?: Data } = {},
): Raised<Code, Data> {
  return { kind: "baton.raised", code, ...options };
}

function isRaised(value: unknown): value is Raised {
  return value !== null && typeof value === "object" && (value as Raised).kind === "baton.raised";
}

export interface Job {
  task: ExternalTask;
  /** Aborts the handler; the first reason wins. */
  stop(reason: StopReason): void;
  /** Settles when the task was resolved, released or given up; never rejects. */
  done: Promise<void>;
}

interface JobDeps {
  calls: WorkerCalls;
  retry: { attempts: number; baseMs: number; capMs: number };
  workerId: string;
  handler: Handler<TaskTypes>;
  emit: (event: WorkerEvent) => void;
  onSettled: () => void;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function runJob(task: ExternalTask, deps: JobDeps): Job {
  const controller = new AbortController();
  let stopped: StopReason | undefined;
  const { calls, emit } = deps;
  const retried = <R>(what: string, call: () => Promise<R>) =>
    withRetry(call, {
      ...deps.retry,
      onRetry: (error, attempt) =>
        emit({ type: "warning", message: `${what} failed (attempt ${attempt}: ${describe(error)}); retrying`, error }),
    });

  /** Gives the claim back; when that fails for good, the lease lapses on its own. */
  async function giveBack(): Promise<void> {
    try {
      await retried(`releasing ${task.task}`, () => calls.release(task.token));
    } catch (failure) {
      emit({
        type: "warning",
        message: `releasing ${task.task} failed (${describe(failure)}); its claim lapses on its own`,
      });
    }
  }

  async function release(reason: string, error?: unknown): Promise<void> {
    await giveBack();
    emit({ type: "released", task, reason, ...(error === undefined ? {} : { error }) });
  }

  async function answer(outcome: { result: unknown } | { error: Raised }): Promise<void> {
    const body =
      "result" in outcome
        ? { result: outcome.result === undefined ? null : outcome.result }
        : {
            error: {
              code: outcome.error.code,
              ...(outcome.error.message === undefined ? {} : { message: outcome.error.message }),
              ...(outcome.error.data === undefined ? {} : { data: outcome.error.data }),
            },
          };
    let attempts = 0;
    try {
      await retried(`resolving ${task.task}`, () => {
        attempts++;
        return calls.resolve(task.token, body);
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        // After a retried resolve, 409 may be our own earlier attempt that landed before its answer was lost.
        const note = attempts > 1 ? " (or an earlier attempt of this resolve landed)" : "";
        emit({
          type: "lost",
          task,
          reason: `the server no longer takes an answer for this claim${note}: ${error.message}`,
        });
        return;
      }
      // 400: the result does not match result_schema, or an undeclared code. The task keeps waiting.
      return release(`the server refused the answer: ${describe(error)}`, error);
    }
    emit("result" in outcome ? { type: "resolved", task } : { type: "raised", task, code: outcome.error.code });
  }

  async function handle(): Promise<void> {
    let value: unknown;
    let thrown: { error: unknown } | undefined;
    try {
      value = await withHandlerSpan(task, () =>
        deps.handler(task, { signal: controller.signal, workerId: deps.workerId, raise } as never),
      );
    } catch (error) {
      thrown = { error };
    }
    if (stopped === "lost") return emit({ type: "lost", task, reason: new TaskStopped("lost").message });
    if (stopped === "cancelled") {
      await giveBack();
      return emit({ type: "cancelled", task });
    }
    if (stopped === "shutdown") return release("the worker is shutting down");
    if (thrown) return release(`the handler threw: ${describe(thrown.error)}`, thrown.error);
    return answer(isRaised(value) ? { error: value } : { result: value });
  }

  return {
    task,
    stop(reason) {
      if (stopped) return;
      stopped = reason;
      controller.abort(new TaskStopped(reason));
    },
    done: handle().finally(deps.onSettled),
  };
}
