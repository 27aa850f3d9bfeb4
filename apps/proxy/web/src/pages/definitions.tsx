import type { DefinitionSummary, Page } from "@baton/actions";
import { useState } from "react";
import { call } from "../api.js";
import { Actor } from "../components/actor.js";
import { ErrorBox } from "../components/error-box.js";
import { Link } from "../components/link.js";
import { type Cursor, Pager } from "../components/pager.js";
import { TimeText } from "../components/time-text.js";
import { useLoad } from "../use-load.js";

export function DefinitionTable({ rows, caption }: { rows: DefinitionSummary[]; caption: string }) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Process</th>
          <th scope="col">Version</th>
          <th scope="col">Registered</th>
          <th scope="col">By</th>
          <th scope="col">Raises</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((d) => (
          <tr key={`${d.name}@${d.version}`}>
            <td>
              <Link to={{ page: "process", name: d.name }}>{d.name}</Link>
            </td>
            <td>
              <Link to={{ page: "version", name: d.name, version: d.version }}>v{d.version}</Link>
            </td>
            <td>
              <TimeText iso={d.created_at} />
            </td>
            <td>
              <Actor actor={d.actor} label={d.actor_label} />
            </td>
            <td>{(d.raises ?? []).join(", ")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function DefinitionsPage() {
  const [cursor, setCursor] = useState<Cursor>({});
  const list = useLoad<Page<DefinitionSummary>>(
    (signal) => call("listDefinitions", { query: { ...cursor, limit: 50 }, signal }),
    JSON.stringify(cursor),
  );
  const rows = list.data?.items ?? [];
  return (
    <section>
      <h1>Definitions</h1>
      <ErrorBox error={list.error} />
      <Pager page={list.data?.page} shown={rows.length} onMove={setCursor} label="Definition pages" />
      {list.data && rows.length === 0 && <p>No definition is registered yet.</p>}
      {rows.length > 0 && <DefinitionTable rows={rows} caption="Every registered version, newest first" />}
    </section>
  );
}
