import type { DefinitionSummary, Page, StoredDefinition } from "@baton/actions";
import { type FormEvent, useState } from "react";
import { call } from "../api.js";
import { ErrorBox } from "../components/error-box.js";
import { Link } from "../components/link.js";
import { type Cursor, Pager } from "../components/pager.js";
import { StartForm } from "../components/start-form.js";
import { VersionSelect } from "../components/version-select.js";
import { can, type Permissions } from "../permissions.js";
import { useLoad } from "../use-load.js";
import { navigate } from "../use-route.js";
import { DefinitionTable } from "./definitions.js";

/** The versions of one process, and a form to compare two of them. */
export function ProcessPage({ name, permissions }: { name: string; permissions: Permissions }) {
  const [cursor, setCursor] = useState<Cursor>({});
  const list = useLoad<Page<DefinitionSummary>>(
    (signal) =>
      call("listDefinitions", { query: { name, sort: "version", order: "desc", ...cursor, limit: 100 }, signal }),
    JSON.stringify([name, cursor]),
  );
  const rows = list.data?.items ?? [];
  const newest = rows[0]?.version;
  const versions = rows.map((d) => d.version);
  const newestDefinition = useLoad<StoredDefinition | null>(
    (signal) =>
      newest !== undefined && can(permissions, "operate")
        ? call("getDefinition", { params: { name, version: newest }, signal })
        : Promise.resolve(null),
    `${name}@${newest}`,
  );
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");

  function compare(event: FormEvent) {
    event.preventDefault();
    const fromVersion = Number(from || (newest ?? 1) - 1);
    const toVersion = Number(to || newest);
    navigate({ page: "compare", name, from: fromVersion, to: toVersion });
  }

  return (
    <section>
      <p>
        <Link to={{ page: "definitions" }}>Definitions</Link> /
      </p>
      <h1>{name}</h1>
      <p>
        <Link to={{ page: "instances", search: new URLSearchParams({ process: name }).toString() }}>
          Instances of {name}
        </Link>
      </p>
      <ErrorBox error={list.error} />
      <ErrorBox error={newestDefinition.error} />
      {newestDefinition.data && <StartForm key={newest} definition={newestDefinition.data} />}
      {rows.length > 1 && (
        <form className="inline-form" onSubmit={compare} aria-label="Compare versions">
          <VersionSelect
            label="Compare"
            blank={`v${(newest ?? 2) - 1}`}
            versions={versions}
            value={from}
            onChange={setFrom}
          />
          <VersionSelect label="with" blank={`v${newest}`} versions={versions} value={to} onChange={setTo} />
          <button type="submit">Compare</button>
        </form>
      )}
      <Pager page={list.data?.page} shown={rows.length} onMove={setCursor} label="Version pages" />
      {list.data && rows.length === 0 && <p>No process named {name} is registered.</p>}
      {rows.length > 0 && <DefinitionTable rows={rows} caption={`Versions of ${name}, newest first`} />}
    </section>
  );
}
