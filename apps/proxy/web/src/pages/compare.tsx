import type { CompatResponse } from "@baton/actions";
import { useState } from "react";
import { call } from "../api.js";
import { DiffView } from "../components/diff-view.js";
import { ErrorBox } from "../components/error-box.js";
import { Link } from "../components/link.js";
import { jsonText } from "../json-text.js";
import { diffLines, hasChanges } from "../line-diff.js";
import { useLoad } from "../use-load.js";

/** A line diff of two versions' canonical JSON (unchanged regions folded), and the compat check between them. */
export function ComparePage({ name, from, to }: { name: string; from: number | null; to: number | null }) {
  const both = useLoad(async (signal) => {
    if (from === null || to === null) return null;
    const [a, b] = await Promise.all([
      call("getDefinition", { params: { name, version: from }, signal }),
      call("getDefinition", { params: { name, version: to }, signal }),
    ]);
    return diffLines(jsonText(a.definition).split("\n"), jsonText(b.definition).split("\n"));
  }, `${name}:${from}:${to}`);
  const [compat, setCompat] = useState<CompatResponse | null>(null);
  const [compatError, setCompatError] = useState<unknown>(undefined);
  const [checking, setChecking] = useState(false);

  async function check() {
    if (from === null || to === null) return;
    setChecking(true);
    setCompatError(undefined);
    try {
      setCompat(
        await call("compatDefinitions", {
          body: { from: { versions: { [name]: from } }, to: { versions: { [name]: to } }, process: name },
        }),
      );
    } catch (failure) {
      setCompatError(failure);
      setCompat(null);
    } finally {
      setChecking(false);
    }
  }

  const diff = both.data ?? [];
  return (
    <section>
      <p>
        <Link to={{ page: "definitions" }}>Definitions</Link> / <Link to={{ page: "process", name }}>{name}</Link> /
      </p>
      <h1>
        {name}: v{from ?? "?"} → v{to ?? "?"}
      </h1>
      {(from === null || to === null) && (
        <p className="error">Choose two versions to compare (the link needs from= and to=).</p>
      )}
      <ErrorBox error={both.error} />
      {both.data && (
        <>
          <h2>Changes</h2>
          {!hasChanges(diff) && <p>The two versions have the same canonical JSON.</p>}
          <DiffView key={`${name}:${from}:${to}`} diff={diff} from={from} to={to} />
        </>
      )}
      <h2>Compatibility</h2>
      <p className="muted">
        Can an instance on v{from} continue under v{to} (upgrade), and does v{to} still honour v{from}'s input and
        output (contract)? A shape check: it cannot see a change of meaning.
      </p>
      <button type="button" onClick={check} disabled={checking || from === null || to === null}>
        Check compatibility
      </button>
      <ErrorBox error={compatError} />
      {compat && <CompatView compat={compat} />}
    </section>
  );
}

function CompatView({ compat }: { compat: CompatResponse }) {
  return (
    <div className="compat" role="status">
      <p>
        <strong>{compat.compatible ? "Compatible" : "Not compatible"}</strong>
        {compat.passes !== compat.compatible && <> (passes: {String(compat.passes)})</>}
      </p>
      {(compat.processes ?? []).map((report) => (
        <div key={report.name}>
          <p>
            {report.name} v{report.from ?? "new"} → v{report.to ?? "new"}: {report.status}; upgrade{" "}
            {report.upgrade.compatible ? "ok" : "broken"}, contract {report.contract.compatible ? "ok" : "broken"}.
          </p>
          {report.changed.length > 0 && <p>Changed: {report.changed.map((c) => c.address).join(", ")}</p>}
          {report.issues.length > 0 && (
            <table>
              <caption>Issues</caption>
              <thead>
                <tr>
                  <th scope="col">Member</th>
                  <th scope="col">Where</th>
                  <th scope="col">Problem</th>
                  <th scope="col">Gating</th>
                </tr>
              </thead>
              <tbody>
                {report.issues.map((issue) => (
                  <tr key={`${issue.member}:${issue.address}:${issue.path}:${issue.message}`}>
                    <td>{issue.member}</td>
                    <td className="mono">
                      {issue.address}
                      {issue.path ? ` ${issue.path}` : ""}
                    </td>
                    <td>{issue.message}</td>
                    <td>{issue.gating ? "yes" : "no"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      ))}
    </div>
  );
}
