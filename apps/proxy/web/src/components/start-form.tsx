// Start a run of a process from its page (docs/ui.md "Start a run"): a form generated from the
// newest version's input_schema by the tasklist's form engine (src/schema-form.ts), an optional
// business key, and an Idempotency-Key kept until a start succeeds, so sending twice (a double
// click, a retry after a lost answer) starts one instance (docs/api.md, POST /instances).

import { ApiError, type StoredDefinition } from "@baton/actions";
import { type FormEvent, useEffect, useState } from "react";
import { call } from "../api.js";
import { type FieldInput, type FieldProblem, fieldLabel, fieldOfPath, formFields, formValue } from "../schema-form.js";
import { ErrorBox } from "./error-box.js";
import { Link } from "./link.js";
import { fieldInputId, SchemaFields } from "./schema-fields.js";

const newKey = () => crypto.randomUUID();

export function StartForm({ definition }: { definition: StoredDefinition }) {
  const body = definition.definition as { input_schema?: unknown; $defs?: Record<string, unknown> };
  const fields = body.input_schema ? formFields(body.input_schema, body.$defs ?? {}) : [];
  const [inputs, setInputs] = useState<Record<string, FieldInput>>({});
  const [key, setKey] = useState("");
  const [idempotencyKey, setIdempotencyKey] = useState(newKey);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(undefined);
  const [started, setStarted] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const firstInvalid = fields.map(fieldLabel).find((label) => problems[label] !== undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus once per attempt
  useEffect(() => {
    if (attempt > 0 && firstInvalid) document.getElementById(fieldInputId("input", firstInvalid))?.focus();
  }, [attempt]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setStarted(null);
    const { value, problems: found } = fields.length ? formValue(fields, inputs) : { value: undefined, problems: [] };
    const byLabel = (list: FieldProblem[]) => Object.fromEntries(list.map((p) => [p.label, p.message]));
    setProblems(byLabel(found));
    if (found.length) {
      setAttempt((n) => n + 1);
      return;
    }
    setBusy(true);
    try {
      const answer = await call("startInstance", {
        body: {
          process: definition.name,
          version: definition.version,
          ...(value !== undefined && value !== null ? { input: value as never } : {}),
          ...(key.trim() ? { key: key.trim() } : {}),
        },
        headers: { "idempotency-key": idempotencyKey },
      });
      setStarted(answer.id);
      setIdempotencyKey(newKey()); // the next start is a new request
    } catch (failure) {
      setError(failure);
      const mapped: Record<string, string> = {};
      if (failure instanceof ApiError)
        for (const f of failure.fields ?? []) {
          const label = fieldOfPath(fields, f.path, "input");
          if (label !== undefined && mapped[label] === undefined) mapped[label] = `${f.path}: ${f.message}`;
        }
      setProblems(mapped);
      setAttempt((n) => n + 1);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="task-form" onSubmit={submit} aria-label="Start a run">
      <fieldset>
        <legend>
          Start a run of {definition.name} v{definition.version}
        </legend>
        {fields.length === 0 && (
          <span className="field-help">This version declares no input_schema: it starts without input.</span>
        )}
        <SchemaFields
          fields={fields}
          inputs={inputs}
          onChange={(label, value) => setInputs((i) => ({ ...i, [label]: value }))}
          idPrefix="input"
          problems={problems}
        />
        <label>
          Business key
          <input value={key} maxLength={200} onChange={(e) => setKey(e.target.value)} />
          <span className="field-help">optional, e.g. order-4711</span>
        </label>
        <span className="field-help" data-testid="idempotency-key">
          Idempotency-Key {idempotencyKey}: sending again starts this run once
        </span>
        <button type="submit" disabled={busy}>
          Start
        </button>
      </fieldset>
      <ErrorBox error={error} />
      {started && (
        <p role="status" className="notice">
          Started <Link to={{ page: "instance", id: started }}>{started}</Link>.
        </p>
      )}
    </form>
  );
}
