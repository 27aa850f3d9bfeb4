// The two forms of a task's page (pages/task.tsx): resolve with a result generated from the
// task's result_schema, or raise one of its declared codes with data generated from its schema.

import { ApiError } from "@baton/actions";
import { type FormEvent, useEffect, useState } from "react";
import {
  type FieldInput,
  type FieldProblem,
  type FormField,
  fieldLabel,
  fieldOfPath,
  formFields,
  formValue,
  problemText,
} from "../schema-form.js";
import { ErrorBox } from "./error-box.js";
import { JsonBlock } from "./json-block.js";
import { fieldInputId, SchemaFields } from "./schema-fields.js";

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

/**
 * Sending one form: its own problems (a field that does not parse or is required and empty) and
 * the API's refusal are written beside the fields they name (`prefix` is where the API puts the
 * form's value: `result`, `error.data`), and focus moves to the first such field, so the reason is
 * on screen where the person clicked Resolve, not below the fold (docs/ui.md "Tasklist").
 */
function useSubmit(
  deliver: Deliver,
  onDone: (sentence: string) => void,
  fields: FormField[],
  prefix: string,
  idPrefix: string,
) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const [apiProblems, setApiProblems] = useState<Record<string, string>>({});
  const [attempt, setAttempt] = useState(0);
  const byField: Record<string, string> = { ...apiProblems };
  for (const p of problems) byField[p.label] = p.message;
  const firstInvalid = fields.map(fieldLabel).find((label) => byField[label] !== undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus once per attempt, not on every render
  useEffect(() => {
    if (attempt > 0 && firstInvalid !== undefined)
      document.getElementById(fieldInputId(idPrefix, firstInvalid))?.focus();
  }, [attempt]);
  async function send(outcome: Outcome | { problems: FieldProblem[] }) {
    setError(undefined);
    setProblems([]);
    setApiProblems({});
    if ("problems" in outcome) {
      setProblems(outcome.problems);
      setAttempt((n) => n + 1);
      return;
    }
    setBusy(true);
    try {
      onDone(await deliver(outcome));
    } catch (failure) {
      setError(failure);
      const mapped: Record<string, string> = {};
      if (failure instanceof ApiError)
        for (const f of failure.fields ?? []) {
          const label = fieldOfPath(fields, f.path, prefix);
          if (label !== undefined && mapped[label] === undefined) mapped[label] = `${f.path}: ${f.message}`;
        }
      setApiProblems(mapped);
      setAttempt((n) => n + 1);
    } finally {
      setBusy(false);
    }
  }
  const report = (
    <>
      {problems.length > 0 && (
        <ul className="error" role="alert">
          {problems.map((p) => (
            <li key={p.label}>{problemText(p)}</li>
          ))}
        </ul>
      )}
      <ErrorBox error={error} />
    </>
  );
  return { busy, send, report, byField };
}

export function ResolveForm({ schemas, deliver, onDone }: TaskFormProps) {
  const fields = formFields(schemas.result, schemas.defs);
  const [inputs, setInputs] = useState<Record<string, FieldInput>>({});
  const { busy, send, report, byField } = useSubmit(deliver, onDone, fields, "result", "result");
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
          problems={byField}
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
  const { busy, send, report, byField } = useSubmit(deliver, onDone, fields, "error.data", "data");
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
            problems={byField}
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
