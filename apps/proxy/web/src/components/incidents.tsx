// "What is wrong": the failed and raised roots grouped by process and error code, with counts,
// each group a link to its list and, for failures, to its bulk retry's dry run (docs/ui.md
// "Incidents"). Read from GET /instances/counts?by=process,error_code with a status filter,
// which the counters answer without reading rows (docs/api.md "Counts"), so it stays cheap on
// a table of millions.

import type { InstanceCounts } from "@baton/actions";
import { call } from "../api.js";
import { EMPTY_FILTERS, filtersToSearch } from "../instance-filters.js";
import { withParams } from "../route.js";
import { POLL_MS, useLoad } from "../use-load.js";
import { ErrorBox } from "./error-box.js";
import { Link } from "./link.js";

/** The statuses an incident group is about: `failed` can be retried in bulk, `raised` only listed. */
const KINDS = ["failed", "raised"] as const;

interface Group {
  kind: (typeof KINDS)[number];
  process: string;
  code: string | null;
  count: number;
}

function listSearch(group: Group): string {
  return filtersToSearch({
    ...EMPTY_FILTERS,
    status: [group.kind],
    process: group.process,
    error_code: group.code ?? "",
  });
}

export function Incidents() {
  const loaded = useLoad<Group[]>(
    async (signal) => {
      const answers = await Promise.all(
        KINDS.map((kind) =>
          call("countInstances", { query: { status: kind, by: "process,error_code" }, signal }).then(
            (counts: InstanceCounts) =>
              counts.groups.map((g) => ({
                kind,
                process: g.process ?? "",
                code: g.error_code ?? null,
                count: g.count,
              })),
          ),
        ),
      );
      return answers.flat().sort((a, b) => b.count - a.count || a.process.localeCompare(b.process));
    },
    "incidents",
    POLL_MS,
  );
  if (!loaded.data) return <ErrorBox error={loaded.error} />;
  const groups = loaded.data;
  return (
    <section aria-labelledby="incidents-heading" className="incidents">
      <h2 id="incidents-heading">Incidents</h2>
      <ErrorBox error={loaded.error} />
      {groups.length === 0 ? (
        <p className="muted" data-testid="no-incidents">
          No root instance has failed or raised.
        </p>
      ) : (
        <table aria-labelledby="incidents-heading">
          <caption>Failed and raised roots by process and error code, largest first</caption>
          <thead>
            <tr>
              <th scope="col">Count</th>
              <th scope="col">Error code</th>
              <th scope="col">Process</th>
              <th scope="col">Status</th>
              <th scope="col">Act</th>
            </tr>
          </thead>
          <tbody>
            {groups.map((group) => {
              const search = listSearch(group);
              const name = `${group.count} ${group.kind} ${group.process} ${group.code ?? "without a code"}`;
              return (
                <tr
                  key={`${group.kind}/${group.process}/${group.code}`}
                  data-incident={`${group.process}/${group.code ?? ""}/${group.kind}`}
                >
                  <td className="num count-bad">
                    <Link to={{ page: "instances", search }}>
                      {group.count}
                      <span className="sr-only"> {name}: list them</span>
                    </Link>
                  </td>
                  <td>
                    {group.code ? (
                      <code>{group.code}</code>
                    ) : (
                      <span className="muted">none (a child failed, or the engine)</span>
                    )}
                  </td>
                  <td>{group.process}</td>
                  <td>{group.kind}</td>
                  <td>
                    {group.kind === "failed" && (
                      <Link
                        to={{ page: "instances", search: withParams(search, { bulk: "retry", bulk_preview: "true" }) }}
                      >
                        Retry…<span className="sr-only"> {name}: preview a bulk retry</span>
                      </Link>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
