// Upgrade with the compatibility check first (docs/ui.md "Instance"): choosing a version runs
// POST /definitions/compat for the process, from the instance's version to the chosen one, and
// shows the upgrade member's blocking issues before the Upgrade button is offered. The API's
// upgrade has the last word: it refuses (409) only for blockers on tasks the tree sits on.

import type { CompatIssue, CompatReport, DefinitionSummary, Page } from "@baton/actions";
import { type FormEvent, useState } from "react";
import { call } from "../api.js";
import { useLoad } from "../use-load.js";
import { ErrorBox } from "./error-box.js";
import { VersionSelect } from "./version-select.js";

/** Whether an issue's address is task `task` or a part of it (`tasks.<id>`, `tasks.<id>.output`…). */
function concernsTask(issue: CompatIssue, task: string): boolean {
  return issue.address === `tasks.${task}` || issue.address.startsWith(`tasks.${task}.`);
}

/**
 * The compatibility of moving instances from `report.from` to `to`: its blocking issues, and,
 * for one instance (`task`: the task it sits on), which of them concern it. The bulk upgrade
 * (bulk-actions.tsx) shows it without `task`.
 */
export function CompatSummary({ report, to, task }: { report: CompatReport; to: number; task?: string }) {
  const blockers = report.issues.filter((i) => i.member === "upgrade" && i.gating);
  const doubts = report.issues.filter((i) => i.member === "upgrade" && !i.gating);
  return (
    <div className="compat-check" data-testid="upgrade-compat">
      {blockers.length === 0 ? (
        <p className="notice">
          Compatible: an instance on any task of v{report.from} can continue under v{to}
          {doubts.length ? ` (${doubts.length} doubt${doubts.length === 1 ? "" : "s"} the check cannot settle)` : ""}.
        </p>
      ) : (
        <>
          <p className="error-text">
            Not compatible for every instance: {blockers.length} blocking issue{blockers.length === 1 ? "" : "s"}. The
            upgrade is refused if one concerns a task this tree sits on
            {task !== undefined ? (
              <>
                ; this instance sits on <code>{task}</code>
              </>
            ) : (
              "; a tree on any other task moves"
            )}
            .
          </p>
          <table>
            <caption>
              Blocking issues (upgrade v{report.from} → v{to})
            </caption>
            <thead>
              <tr>
                <th scope="col">Where</th>
                <th scope="col">Problem</th>
                {task !== undefined && <th scope="col">This instance's task</th>}
              </tr>
            </thead>
            <tbody>
              {blockers.map((issue) => (
                <tr key={`${issue.address}:${issue.path}:${issue.message}`} data-blocker={issue.address}>
                  <td className="mono">
                    {issue.address}
                    {issue.path ? ` ${issue.path}` : ""}
                  </td>
                  <td>{issue.message}</td>
                  {task !== undefined && <td>{concernsTask(issue, task) ? "yes" : ""}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {!report.contract.compatible && (
        <p className="muted">
          The contract (input and output of the process) changed incompatibly; that does not block moving running
          instances.
        </p>
      )}
    </div>
  );
}

export function UpgradeForm({
  id,
  process,
  version,
  task,
  onChanged,
}: {
  id: string;
  process: string;
  version: number;
  /** The task the instance sits on, to flag the blockers that concern it. */
  task: string;
  onChanged: () => void;
}) {
  const versions = useLoad<Page<DefinitionSummary>>(
    (signal) =>
      call("listDefinitions", { query: { name: process, sort: "version", order: "desc", limit: 100 }, signal }),
    process,
  );
  const [chosen, setTarget] = useState("");
  // After an upgrade the instance is at the chosen version: nothing is chosen any more.
  const target = chosen !== "" && Number(chosen) !== version ? chosen : "";
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const others = (versions.data?.items ?? []).filter((d) => d.version !== version);
  const compat = useLoad<CompatReport | null>(
    (signal) =>
      target
        ? call("compatDefinitions", {
            body: {
              from: { versions: { [process]: version } },
              to: { versions: { [process]: Number(target) } },
              process,
            },
            signal,
          }).then((answer) => answer.processes?.find((r) => r.name === process) ?? null)
        : Promise.resolve(null),
    `${process}:${version}>${target}`,
  );
  const checked = target !== "" && (compat.data !== undefined || compat.error !== undefined);
  const blocked = (compat.data?.issues ?? []).some((i) => i.member === "upgrade" && i.gating);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setResult(null);
    try {
      const answer = await call("upgradeInstance", {
        params: { id },
        body: { from_version: version, to_version: Number(target) },
      });
      const moves = answer.moves?.length ?? 0;
      setResult(
        answer.upgraded
          ? `Upgraded to version ${target} (${moves} instance${moves === 1 ? "" : "s"} moved).`
          : "Nothing was upgraded.",
      );
      onChanged();
    } catch (failure) {
      setError(failure);
    }
  }

  if (versions.data && others.length === 0) return <p className="muted">Upgrade: {process} has no other version.</p>;
  return (
    <form className="upgrade-form" onSubmit={submit} aria-label="Upgrade">
      <div className="inline-form">
        <VersionSelect
          label={`Upgrade from v${version} to`}
          blank="choose a version"
          versions={others.map((d) => d.version)}
          value={target}
          required
          onChange={(v) => {
            setTarget(v);
            setResult(null);
            setError(undefined);
          }}
        />
        <button type="submit" className={blocked ? "danger" : undefined} disabled={!checked}>
          {blocked ? "Upgrade anyway" : "Upgrade"}
        </button>
        {target && !checked && <span className="muted">Checking compatibility…</span>}
      </div>
      {compat.error !== undefined && (
        <div>
          <p className="muted">The compatibility check failed; the upgrade itself still checks:</p>
          <ErrorBox error={compat.error} />
        </div>
      )}
      {compat.data && <CompatSummary report={compat.data} to={Number(target)} task={task} />}
      {result && (
        <p role="status" className="notice">
          {result}
        </p>
      )}
      <ErrorBox error={error ?? versions.error} />
    </form>
  );
}
