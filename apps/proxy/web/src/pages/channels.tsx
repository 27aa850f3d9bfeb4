import type { ChannelEntry, Page, ScheduleWarning } from "@baton/actions";
import { type FormEvent, useState } from "react";
import { call } from "../api.js";
import { Actor } from "../components/actor.js";
import { ErrorBox } from "../components/error-box.js";
import { Link } from "../components/link.js";
import { type Cursor, Pager } from "../components/pager.js";
import { TimeText } from "../components/time-text.js";
import { can, type Permissions } from "../permissions.js";
import { liveOnPrevious } from "../promote.js";
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
                <td>
                  <Actor actor={entry.actor} label={entry.actor_label} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

interface PointerChange {
  name: string;
  version: number;
  /** 0 when the process is not on the target channel yet. */
  previous: number;
}

/** What promoting `from` onto `to` would move: only pointers whose version differs; `unchanged` counts the rest. */
export function promotePreview(
  entries: ChannelEntry[],
  from: string,
  to: string,
  process: string,
): { changes: PointerChange[]; unchanged: number } {
  const target = new Map(entries.filter((e) => e.channel === to).map((e) => [e.name, e.version]));
  const changes: PointerChange[] = [];
  let unchanged = 0;
  for (const entry of entries) {
    if (entry.channel !== from || (process && entry.name !== process)) continue;
    const previous = target.get(entry.name) ?? 0;
    if (previous === entry.version) unchanged++;
    else changes.push({ name: entry.name, version: entry.version, previous });
  }
  return { changes: changes.sort((a, b) => a.name.localeCompare(b.name)), unchanged };
}

/**
 * The schedules bound to `to` that the versions on `from` would start with an input they refuse
 * (compat's `schedule_warnings`, docs/schedules.md); none when `to` has no pointer yet.
 */
async function scheduleWarningsOf(from: string, to: string, process: string): Promise<ScheduleWarning[]> {
  try {
    const compat = await call("compatDefinitions", {
      body: { from: { channel: to }, to: { channel: from }, ...(process ? { process } : {}) },
    });
    return compat.schedule_warnings ?? [];
  } catch {
    return [];
  }
}

async function allChannelEntries(): Promise<ChannelEntry[]> {
  const entries: ChannelEntry[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await call("listChannels", { query: { limit: 100, ...(after ? { after } : {}) } });
    entries.push(...page.items);
    if (!page.page.next_cursor) return entries;
    after = page.page.next_cursor;
  }
}

/**
 * Promote in two steps: Preview reads every pointer and lists what would move (unchanged
 * pointers are only counted); nothing changes until the operator confirms.
 */
function PromoteForm({ channels, onDone }: { channels: string[]; onDone: () => void }) {
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [process, setProcess] = useState("");
  const [preview, setPreview] = useState<{ changes: PointerChange[]; unchanged: number } | null>(null);
  const [result, setResult] = useState<{ changes: PointerChange[]; unchanged: number; to: string } | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const [warnings, setWarnings] = useState<ScheduleWarning[]>([]);
  const [live, setLive] = useState<Record<string, number>>({});
  // The channels that exist when the preview was made: a target outside them is a new channel
  // (or a typo), which the preview says before anything moves.
  const [known, setKnown] = useState<string[]>([]);
  const body = () => ({ from: from.trim(), to: to.trim(), ...(process.trim() ? { process: process.trim() } : {}) });

  async function showPreview(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setResult(null);
    try {
      const entries = await allChannelEntries();
      const { from: f, to: t, process: p = "" } = body();
      if (!entries.some((e) => e.channel === f && (!p || e.name === p)))
        throw new Error(`Channel "${f}" points at no version${p ? ` of process "${p}"` : ""}: nothing to promote.`);
      const next = promotePreview(entries, f, t, p);
      setKnown([...new Set(entries.map((e) => e.channel))].sort());
      setPreview(next);
      setWarnings(await scheduleWarningsOf(f, t, p));
      setLive(await liveOnPrevious(next.changes));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  async function confirm() {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await call("promoteChannel", { body: body() });
      const changes = answer.promoted.filter((p) => p.version !== p.previous);
      setResult({ changes, unchanged: answer.promoted.length - changes.length, to: answer.to });
      setPreview(null);
      onDone();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  const changeList = (changes: PointerChange[], target: string, done: boolean) => (
    <ul>
      {changes.map((p) => (
        <li key={p.name} data-change={p.name}>
          {p.name}: {target} {done ? "now at" : "to"} v{p.version}
          {p.previous ? ` (was v${p.previous})` : " (new)"}
          {!done && p.previous > 0 && (
            <>
              {" · "}
              <Link to={{ page: "compare", name: p.name, from: p.previous, to: p.version }}>
                what changed and whether v{p.previous} instances can move (compare v{p.previous} → v{p.version})
              </Link>
              {live[p.name] !== undefined && (
                <span data-testid="live-on-previous">
                  {" · "}
                  {live[p.name]} live {live[p.name] === 1 ? "instance stays" : "instances stay"} on v{p.previous}
                </span>
              )}
            </>
          )}
        </li>
      ))}
    </ul>
  );

  /** A change to the form drops the preview: it was made for the old values. */
  const edit = (set: (value: string) => void) => (e: { target: { value: string } }) => {
    set(e.target.value);
    setPreview(null);
  };

  return (
    <div className="promote">
      <form className="inline-form" onSubmit={showPreview} aria-label="Promote a channel">
        <datalist id="channel-names">
          {channels.map((c) => (
            <option key={c} value={c} />
          ))}
        </datalist>
        <label>
          Promote from
          <input required list="channel-names" value={from} onChange={edit(setFrom)} />
        </label>
        <label>
          to
          <input required list="channel-names" value={to} onChange={edit(setTo)} />
        </label>
        <label>
          Only process (optional)
          <input value={process} onChange={edit(setProcess)} />
        </label>
        <button type="submit" disabled={busy}>
          Preview
        </button>
      </form>
      <ErrorBox error={error} />
      {preview && (
        <section className="notice" aria-label="Promote preview">
          {preview.changes.length === 0 ? (
            <p>
              Nothing would change: {to.trim()} already matches {from.trim()}.
            </p>
          ) : (
            <>
              <p>
                Promoting {from.trim()} onto {to.trim()} moves {preview.changes.length}{" "}
                {preview.changes.length === 1 ? "pointer" : "pointers"}
                {preview.unchanged ? ` (${preview.unchanged} already match)` : ""}:
              </p>
              {changeList(preview.changes, to.trim(), false)}
              {!known.includes(to.trim()) && (
                <p data-testid="new-channel">
                  <strong>{to.trim()}</strong> is a new channel: no process points at it yet, and this creates it. The
                  channels that exist: {known.join(", ")}.
                </p>
              )}
              {warnings.length > 0 && (
                <div role="alert" aria-label="Schedule warnings">
                  <p>
                    {warnings.length === 1 ? "A schedule" : `${warnings.length} schedules`} bound to {to.trim()} would
                    start the new version with an input it refuses; each such fire will be recorded failed:
                  </p>
                  <ul>
                    {warnings.map((w) => (
                      <li key={w.schedule}>{w.message}</li>
                    ))}
                  </ul>
                </div>
              )}
              <button type="button" className="danger" disabled={busy} onClick={confirm}>
                Yes, move {preview.changes.length} {preview.changes.length === 1 ? "pointer" : "pointers"}
              </button>{" "}
            </>
          )}
          <button type="button" onClick={() => setPreview(null)}>
            Back
          </button>
        </section>
      )}
      {result && (
        <div role="status" className="notice">
          {result.changes.length === 0 ? (
            <p>Nothing changed: {result.to} already matched.</p>
          ) : (
            changeList(result.changes, result.to, true)
          )}
          {result.unchanged > 0 && <p className="muted">{result.unchanged} already matched and did not move.</p>}
        </div>
      )}
    </div>
  );
}
