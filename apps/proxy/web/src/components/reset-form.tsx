// Reset (rerun from a task, docs/ui.md "Instance", docs/safe-change.md "Reset"): choose one of the
// tasks of the instance's version, and the root goes back there with the state it had on first
// entering it. The API has the last word: it refuses (409) a task the instance cannot go back to,
// and an only_once task after the point without force.

import type { ResetResponse, StoredDefinition } from "@baton/actions";
import { type FormEvent, useState } from "react";
import { call } from "../api.js";
import { useLoad } from "../use-load.js";
import { ErrorBox } from "./error-box.js";

/** The answer of a reset as a sentence. */
export function describeReset(answer: ResetResponse): string {
  const from = answer.restored_from.entered
    ? `the state of its first entry (visit ${answer.restored_from.task_epoch})`
    : `the state visit ${answer.restored_from.task_epoch} left`;
  const dropped = answer.dropped.length > 0 ? ` Dropped outputs: ${answer.dropped.join(", ")}.` : "";
  const { cancelled, detached } = answer.children;
  const children =
    cancelled + detached > 0 ? ` Children after the point: ${cancelled} cancelled, ${detached} detached.` : "";
  return `Reset to task ${answer.task} (visit ${answer.task_epoch}, status ${answer.status}) with ${from}.${dropped}${children}`;
}

export function ResetForm({
  id,
  process,
  version,
  task,
  onChanged,
}: {
  id: string;
  process: string;
  version: number;
  /** The task the instance sits on: the default choice. */
  task: string;
  onChanged: () => void;
}) {
  const definition = useLoad<StoredDefinition>(
    (signal) => call("getDefinition", { params: { name: process, version }, signal }),
    `${process}@${version}`,
  );
  const tasks = ((definition.data?.definition.tasks ?? []) as Array<{ id: string }>).map((t) => t.id);
  const [chosen, setChosen] = useState("");
  const [force, setForce] = useState(false);
  const [paused, setPaused] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const target = chosen || task;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setResult(null);
    try {
      const answer = await call("resetInstance", {
        params: { id },
        body: { to_task: target, ...(force ? { force: true } : {}), ...(paused ? { paused: true } : {}) },
      });
      setResult(describeReset(answer));
      onChanged();
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <form className="reset-form" onSubmit={submit} aria-label="Reset">
      <div className="inline-form">
        <label>
          Rerun from task
          <select value={target} onChange={(e) => setChosen(e.target.value)}>
            {(tasks.length > 0 ? tasks : [task]).map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} />
          force (an only_once task after it may run again)
        </label>
        <label className="check">
          <input type="checkbox" checked={paused} onChange={(e) => setPaused(e.target.checked)} />
          land paused (to upgrade it first)
        </label>
        <button type="submit">Reset</button>
      </div>
      <p className="muted">
        The state goes back to what it was when the instance first entered the task; later outputs stay in the log.
      </p>
      {result && (
        <p role="status" className="notice">
          {result}
        </p>
      )}
      <ErrorBox error={error ?? definition.error} />
    </form>
  );
}
