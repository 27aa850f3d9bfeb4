// The two forms of a task's page (pages/task.tsx): resolve with a result generated from the
// task's result_schema, or raise one of its declared codes with data generated from its schema.

import { type FormEvent, useState } from "react";
import { type FieldInput, formFields, formValue } from "../schema-form.js";
import { ErrorBox } from "./error-box.js";
import { JsonBlock } from "./json-block.js";
import { SchemaFields } from "./schema-fields.js";

export interface TaskSchemas {
  result: unknown;
  raises: Record<string, unknown>;
  defs: Record<string, unknown>;
}

export type Outcome =
  | { kind: "result"; value: unknown }
  | { kind: "error"; code: string; message: string; data?: unknown };

type Deliver = (outcome: Outcome) => Promise<string>;

/** What both forms take: the task's schemas, how to send an outcome, and what to do with the sentence it returns. */
export interface TaskFormProps {
  schemas: TaskSchemas;
  deliver: Deliver;
  onDone: (sentence: string) => void;
}

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

export function ResolveForm({ schemas, deliver, onDone }: TaskFormProps) {
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

export function RaiseForm({ schemas, deliver, onDone }: TaskFormProps) {
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
