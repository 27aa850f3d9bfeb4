import type { ChannelEntry, Page, PromoteChannelResponse } from "@baton/actions";
import { type FormEvent, useState } from "react";
import { call } from "../api.js";
import { ErrorBox } from "../components/error-box.js";
import { Link } from "../components/link.js";
import { type Cursor, Pager } from "../components/pager.js";
import { TimeText } from "../components/time-text.js";
import { can, type Permissions } from "../permissions.js";
import { useLoad } from "../use-load.js";

export function ChannelsPage({ permissions }: { permissions: Permissions }) {
  const [cursor, setCursor] = useState<Cursor>({});
  const list = useLoad<Page<ChannelEntry>>(
    (signal) => call("listChannels", { query: { ...cursor, limit: 100 }, signal }),
    JSON.stringify(cursor),
  );
  const rows = list.data?.items ?? [];
  const channelNames = [...new Set(rows.map((r) => r.channel))].sort();
  return (
    <section>
      <h1>Channels</h1>
      <ErrorBox error={list.error} />
      {can(permissions, "deploy") && <PromoteForm channels={channelNames} onDone={list.reload} />}
      <Pager page={list.data?.page} shown={rows.length} onMove={setCursor} label="Channel pages" />
      {list.data && rows.length === 0 && <p>No channel points at any version yet.</p>}
      {rows.length > 0 && (
        <table>
          <caption>Channel pointers</caption>
          <thead>
            <tr>
              <th scope="col">Channel</th>
              <th scope="col">Process</th>
              <th scope="col">Version</th>
              <th scope="col">Updated</th>
              <th scope="col">By</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((entry) => (
              <tr key={`${entry.channel}/${entry.name}`} data-channel={entry.channel} data-process={entry.name}>
                <td>{entry.channel}</td>
                <td>
                  <Link to={{ page: "process", name: entry.name }}>{entry.name}</Link>
                </td>
                <td>
                  <Link to={{ page: "version", name: entry.name, version: entry.version }}>v{entry.version}</Link>
                </td>
                <td>
                  <TimeText iso={entry.updated_at} />
                </td>
                <td>{entry.actor ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function PromoteForm({ channels, onDone }: { channels: string[]; onDone: () => void }) {
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [process, setProcess] = useState("");
  const [result, setResult] = useState<PromoteChannelResponse | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setResult(null);
    try {
      setResult(
        await call("promoteChannel", {
          body: { from: from.trim(), to: to.trim(), ...(process.trim() ? { process: process.trim() } : {}) },
        }),
      );
      onDone();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="inline-form" onSubmit={submit} aria-label="Promote a channel">
      <datalist id="channel-names">
        {channels.map((c) => (
          <option key={c} value={c} />
        ))}
      </datalist>
      <label>
        Promote from
        <input required list="channel-names" value={from} onChange={(e) => setFrom(e.target.value)} />
      </label>
      <label>
        to
        <input required list="channel-names" value={to} onChange={(e) => setTo(e.target.value)} />
      </label>
      <label>
        Only process (optional)
        <input value={process} onChange={(e) => setProcess(e.target.value)} />
      </label>
      <button type="submit" disabled={busy}>
        Promote
      </button>
      <ErrorBox error={error} />
      {result && (
        <div role="status" className="notice">
          {result.promoted.length === 0 ? (
            <p>
              Nothing to promote: {result.to} already matches {result.from}.
            </p>
          ) : (
            <ul>
              {result.promoted.map((p) => (
                <li key={p.name}>
                  {p.name}: {result.to} now at v{p.version}
                  {p.previous ? ` (was v${p.previous})` : " (new)"}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </form>
  );
}
