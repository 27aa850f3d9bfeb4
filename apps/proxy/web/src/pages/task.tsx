// One waiting external task (docs/ui.md "Tasklist"): what it waits for, and, for a person with
// `worker`, a form generated from the task's `result_schema` to resolve it, or one to raise one
// of its declared `raises` codes. Both are delivered with POST /external-tasks/signal (by
// instance and task: a person holds no claim token).

import type { StoredDefinition, WaitingExternalTask } from "@baton/actions";
import { type FormEvent, useState } from "react";
import { call } from "../api.js";
import { ErrorBox } from "../components/error-box.js";
import { JsonBlock } from "../components/json-block.js";
import { Link } from "../components/link.js";
import { SchemaFields } from "../components/schema-fields.js";
import { StatusBadge } from "../components/status-badge.js";
import { TimeText } from "../components/time-text.js";
import { can, type Permissions } from "../permissions.js";
import { type FieldInput, formFields, formValue } from "../schema-form.js";
import { POLL_MS, useLoad } from "../use-load.js";

interface TaskSchemas {
  result: unknown;
  raises: Record<string, unknown>;
  defs: Record<string, unknown>;
}

/** The result schema, the raises and the `$defs` of task `task` in a stored definition. */
function taskSchemas(stored: StoredDefinition, task: string): TaskSchemas {
  const definition = stored.definition as {
    $defs?: Record<string, unknown>;
    tasks?: { id?: string; raises?: Record<string, unknown>; action?: { result_schema?: unknown } }[];
  };
  const found = definition.tasks?.find((t) => t.id === task);
  return { result: found?.action?.result_schema ?? {}, raises: found?.raises ?? {}, defs: definition.$defs ?? {} };
}

type Outcome = { kind: "result"; value: unknown } | { kind: "error"; code: string; message: string; data?: unknown };

export function TaskPage({ instance, permissions }: { instance: string; permissions: Permissions }) {
  const [done, setDone] = useState<string | null>(null);
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

  /** Sends the outcome if the same visit still waits; returns the sentence to show. */
  async function deliver(outcome: Outcome): Promise<string> {
    const now = (await call("listExternalTasks", { query: { instance_id: instance } })).items[0];
    if (!now || now.task !== task!.task || now.waiting_since !== task!.waiting_since)
      throw new Error(
        `Nothing was sent: task ${task!.task} of instance ${instance} no longer waits (someone resolved it, its deadline passed or the instance was cancelled).`,
      );
    const body =
      outcome.kind === "result"
        ? { instance_id: instance, task: task!.task, result: outcome.value as never }
        : {
            instance_id: instance,
            task: task!.task,
            error: {
              code: outcome.code,
              ...(outcome.message ? { message: outcome.message } : {}),
              ...(outcome.data !== undefined ? { data: outcome.data as never } : {}),
            },
          };
    const answer = await call("signalExternalTask", { body });
    return answer.delivered
      ? outcome.kind === "result"
        ? `Resolved: task ${task!.task} took the result and instance ${instance} goes on.`
        : `Raised ${outcome.code}: task ${task!.task} ended with that error and instance ${instance} routes it.`
      : `The task stopped waiting just before the answer arrived: the API kept it for the next time task ${task!.task} of this instance waits.`;
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
                <ResolveForm key={task.waiting_since} schemas={schemas} deliver={deliver} onDone={finished} />
                {Object.keys(schemas.raises).length > 0 && (
                  <RaiseForm
                    key={`raise-${task.waiting_since}`}
                    schemas={schemas}
                    deliver={deliver}
                    onDone={finished}
                  />
                )}
              </>
            )
          )}
        </>
      )}
    </section>
  );
}

type Deliver = (outcome: Outcome) => Promise<string>;

function useSubmit(deliver: Deliver, onDone: (sentence: string) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [problems, setProblems] = useState<string[]>([]);
  async function send(outcome: Outcome | { problems: string[] }) {
    setError(undefined);
    setProblems([]);
    if ("problems" in outcome) {
      setProblems(outcome.problems);
      return;
    }
    setBusy(true);
    try {
      onDone(await deliver(outcome));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }
  const report = (
    <>
      {problems.length > 0 && (
        <ul className="error" role="alert">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <ErrorBox error={error} />
    </>
  );
  return { busy, send, report };
}

function ResolveForm({
  schemas,
  deliver,
  onDone,
}: {
  schemas: TaskSchemas;
  deliver: Deliver;
  onDone: (s: string) => void;
}) {
  const fields = formFields(schemas.result, schemas.defs);
  const [inputs, setInputs] = useState<Record<string, FieldInput>>({});
  const { busy, send, report } = useSubmit(deliver, onDone);
  function submit(event: FormEvent) {
    event.preventDefault();
    const { value, problems } = formValue(fields, inputs);
    send(problems.length ? { problems } : { kind: "result", value });
  }
  return (
    <form className="task-form" onSubmit={submit} aria-label="Resolve">
      <fieldset>
        <legend>Resolve with a result</legend>
        <SchemaFields
          fields={fields}
          inputs={inputs}
          onChange={(label, value) => setInputs((i) => ({ ...i, [label]: value }))}
          idPrefix="result"
        />
        <details>
          <summary>The result schema</summary>
          <JsonBlock value={schemas.result} label="Result schema" />
        </details>
        <button type="submit" disabled={busy}>
          Resolve
        </button>
      </fieldset>
      {report}
    </form>
  );
}

function RaiseForm({
  schemas,
  deliver,
  onDone,
}: {
  schemas: TaskSchemas;
  deliver: Deliver;
  onDone: (s: string) => void;
}) {
  const codes = Object.keys(schemas.raises);
  const [code, setCode] = useState("");
  const [message, setMessage] = useState("");
  const [inputs, setInputs] = useState<Record<string, FieldInput>>({});
  const dataSchema = code ? schemas.raises[code] : null;
  const fields = dataSchema ? formFields(dataSchema, schemas.defs) : [];
  const { busy, send, report } = useSubmit(deliver, onDone);
  function submit(event: FormEvent) {
    event.preventDefault();
    if (!fields.length) return send({ kind: "error", code, message });
    const { value, problems } = formValue(fields, inputs);
    send(problems.length ? { problems } : { kind: "error", code, message, data: value });
  }
  return (
    <form className="task-form" onSubmit={submit} aria-label="Raise">
      <fieldset>
        <legend>Or raise one of its errors</legend>
        <label>
          Error code
          <select
            required
            value={code}
            onChange={(e) => {
              setCode(e.target.value);
              setInputs({});
            }}
          >
            <option value="">choose a code</option>
            {codes.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
        <label>
          Message
          <input value={message} onChange={(e) => setMessage(e.target.value)} size={40} />
        </label>
        {fields.length > 0 && (
          <SchemaFields
            fields={fields}
            inputs={inputs}
            onChange={(label, value) => setInputs((i) => ({ ...i, [label]: value }))}
            idPrefix="data"
          />
        )}
        {code && !dataSchema && <span className="field-help">{code} carries no data.</span>}
        <button type="submit" className="danger" disabled={busy || !code}>
          Raise
        </button>
      </fieldset>
      {report}
    </form>
  );
}
