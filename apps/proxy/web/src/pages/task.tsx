// One waiting external task (docs/ui.md "Tasklist"): what it waits for, and, for a person with
// `worker`, a form generated from the task's `result_schema` to resolve it, or one to raise one
// of its declared `raises` codes. Both are delivered with POST /external-tasks/signal (by
// instance and task: a person holds no claim token) with `only_if_waiting` and the visit's
// `task_epoch`, so an answer never waits in the buffer for, or reaches, a visit the person did
// not see (docs/ui.md "Tasklist").

import type { StoredDefinition, WaitingExternalTask } from "@baton/actions";
import { ApiError } from "@baton/actions";
import { useState } from "react";
import { call } from "../api.js";
import { ErrorBox } from "../components/error-box.js";
import { JsonBlock } from "../components/json-block.js";
import { Link } from "../components/link.js";
import { StatusBadge } from "../components/status-badge.js";
import { type Outcome, RaiseForm, ResolveForm, type TaskSchemas } from "../components/task-forms.js";
import { TimeText } from "../components/time-text.js";
import { can, type Permissions } from "../permissions.js";
import { POLL_MS, useLoad } from "../use-load.js";

/** The result schema, the raises and the `$defs` of task `task` in a stored definition. */
function taskSchemas(stored: StoredDefinition, task: string): TaskSchemas {
  const definition = stored.definition as {
    $defs?: Record<string, unknown>;
    tasks?: { id?: string; raises?: Record<string, unknown>; action?: { result_schema?: unknown } }[];
  };
  const found = definition.tasks?.find((t) => t.id === task);
  return { result: found?.action?.result_schema ?? {}, raises: found?.raises ?? {}, defs: definition.$defs ?? {} };
}

export function TaskPage({ instance, permissions }: { instance: string; permissions: Permissions }) {
  const [done, setDone] = useState<string | null>(null);
  // An answer refused because its visit ended: the forms of a newer visit start afresh, so the
  // page keeps the refusal in view above them.
  const [missed, setMissed] = useState<{ epoch: number; sentence: string } | null>(null);
  const waiting = useLoad<WaitingExternalTask | null>(
    (signal) =>
      call("listExternalTasks", { query: { instance_id: instance }, signal }).then((page) => page.items[0] ?? null),
    instance,
    done ? undefined : POLL_MS,
  );
  const task = waiting.data;
  const definition = useLoad<StoredDefinition | null>(
    (signal) =>
      task
        ? call("getDefinition", { params: { name: task.process, version: task.version }, signal })
        : Promise.resolve(null),
    task ? `${task.process}@${task.version}` : "",
  );
  const schemas = definition.data && task ? taskSchemas(definition.data, task.task) : null;

  /**
   * Sends the outcome if the visit on screen still waits; returns the sentence to show. The check
   * against the list catches a visit that ended; the signal's `task_epoch` makes the API refuse
   * (409) when the visit ended, or a new one began, after that check, instead of keeping the answer.
   */
  async function deliver(outcome: Outcome): Promise<string> {
    const gone = `Nothing was sent: task ${task!.task} of instance ${instance} no longer waits (someone resolved it, its deadline passed or the instance was cancelled).`;
    const now = (await call("listExternalTasks", { query: { instance_id: instance } })).items[0];
    if (!now || now.task !== task!.task || now.task_epoch !== task!.task_epoch) {
      setMissed({ epoch: task!.task_epoch, sentence: gone });
      throw new Error(gone);
    }
    const handle = { instance_id: instance, task: task!.task, only_if_waiting: true, task_epoch: task!.task_epoch };
    const body =
      outcome.kind === "result"
        ? { ...handle, result: outcome.value as never }
        : {
            ...handle,
            error: {
              code: outcome.code,
              ...(outcome.message ? { message: outcome.message } : {}),
              ...(outcome.data !== undefined ? { data: outcome.data as never } : {}),
            },
          };
    try {
      await call("signalExternalTask", { body });
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === "conflict") {
        const sentence = `Nothing was sent: ${failure.message}.`;
        setMissed({ epoch: task!.task_epoch, sentence });
        waiting.reload(); // show where the task is now without waiting for the next refresh
        throw new Error(sentence);
      }
      throw failure;
    }
    return outcome.kind === "result"
      ? `Resolved: task ${task!.task} took the result and instance ${instance} goes on.`
      : `Raised ${outcome.code}: task ${task!.task} ended with that error and instance ${instance} routes it.`;
  }

  const finished = (sentence: string) => {
    setDone(sentence);
    waiting.reload();
  };

  return (
    <section className="task-page">
      <h1>
        External task{task ? ` ${task.task}` : ""} <span className="muted">of</span>{" "}
        <Link to={{ page: "instance", id: instance }} className="mono">
          {instance}
        </Link>
      </h1>
      <p>
        <Link to={{ page: "external" }}>← All waiting tasks</Link>
      </p>
      {done && (
        <p role="status" className="notice">
          {done}
        </p>
      )}
      <ErrorBox error={waiting.error} />
      {missed && task?.task_epoch !== missed.epoch && (
        <p role="status" className="notice" data-testid="missed">
          Your answer to the earlier visit of this task was not delivered. {missed.sentence}
          {task ? " The form below is for the visit waiting now." : ""}
        </p>
      )}
      {waiting.data === null && !done && (
        <p>
          Instance <span className="mono">{instance}</span> does not wait on an external task now.
        </p>
      )}
      {task && (
        <>
          <dl className="facts" aria-label="Task">
            <dt>Process</dt>
            <dd>
              <Link to={{ page: "version", name: task.process, version: task.version }}>
                {task.process} v{task.version}
              </Link>
            </dd>
            <dt>Task</dt>
            <dd>{task.task}</dd>
            <dt>Business key</dt>
            <dd className="mono" data-testid="business-key">
              {task.key ?? "none"}
            </dd>
            <dt>Instance status</dt>
            <dd>
              <StatusBadge status={task.status} />
            </dd>
            <dt>Waiting since</dt>
            <dd>
              <TimeText iso={task.waiting_since} />
            </dd>
            <dt>Deadline</dt>
            <dd>{task.deadline ? <TimeText iso={task.deadline} /> : "none (no timeout)"}</dd>
            <dt>Claimed by</dt>
            <dd data-testid="claimed-by">
              {task.claimed_by ? (
                <>
                  {task.claimed_by} until <TimeText iso={task.claim_expires!} />
                </>
              ) : (
                "nobody (claimable now)"
              )}
            </dd>
          </dl>
          <h2>Input</h2>
          <JsonBlock value={task.external_input} label="Task input" />
          <ErrorBox error={definition.error} />
          {!can(permissions, "worker") ? (
            <p className="muted" data-testid="needs-worker">
              Resolving or raising this task needs the <code>worker</code> permission; you can read it.
            </p>
          ) : (
            schemas && (
              <>
                {task.claimed_by && (
                  <p className="notice">
                    Worker {task.claimed_by} holds a claim on this task: an answer sent here resolves it in its place,
                    and that worker's own answer will then be refused.
                  </p>
                )}
                <ResolveForm key={task.task_epoch} schemas={schemas} deliver={deliver} onDone={finished} />
                {Object.keys(schemas.raises).length > 0 && (
                  <RaiseForm key={`raise-${task.task_epoch}`} schemas={schemas} deliver={deliver} onDone={finished} />
                )}
              </>
            )
          )}
        </>
      )}
    </section>
  );
}
