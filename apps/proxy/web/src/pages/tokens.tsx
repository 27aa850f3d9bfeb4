import type { CreatedToken, Permission } from "@baton/actions";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { call } from "../api.js";
import { ErrorBox } from "../components/error-box.js";
import { TimeText } from "../components/time-text.js";
import { can, type Permissions } from "../permissions.js";
import { useLoad } from "../use-load.js";

const PERMS: Permission[] = ["read", "operate", "deploy", "worker", "admin"];

export function TokensPage({ permissions }: { permissions: Permissions }) {
  const list = useLoad((signal) => call("listTokens", { signal }), "tokens");
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);

  // Focus after a confirmation closes (never <body>): the outcome after "Yes, revoke", the
  // token's Revoke button after "Keep".
  const outcomeRef = useRef<HTMLDivElement>(null);
  const [focusTo, setFocusTo] = useState<{ outcome: true } | { revoke: string } | null>(null);
  useEffect(() => {
    if (!focusTo) return;
    if ("outcome" in focusTo) outcomeRef.current?.focus();
    else document.querySelector<HTMLButtonElement>(`button[data-revoke="${focusTo.revoke}"]`)?.focus();
    setFocusTo(null);
  }, [focusTo]);
  const [revoked, setRevoked] = useState<string | null>(null);
  // The confirmation replaces the focused Revoke button: the safe choice takes focus.
  useEffect(() => {
    if (confirming) document.querySelector<HTMLButtonElement>(`button[data-keep="${confirming}"]`)?.focus();
  }, [confirming]);

  async function revoke(id: string, label: string) {
    setError(undefined);
    setConfirming(null);
    setRevoked(null);
    try {
      await call("revokeToken", { params: { id } });
      setRevoked(label);
      // A revoked token's secret is worthless: it leaves the "copy it now" banner.
      setCreated((shown) => (shown?.id === id ? null : shown));
      list.reload();
    } catch (failure) {
      setError(failure);
    }
    setFocusTo({ outcome: true });
  }

  const rows = list.data?.items ?? [];
  return (
    <section>
      <h1>API tokens</h1>
      <div ref={outcomeRef} tabIndex={-1} className="revoke-outcome">
        {revoked && (
          <p role="status" className="notice">
            Token {revoked} revoked.
          </p>
        )}
      </div>
      {!can(permissions, "admin") && (
        <p className="muted" data-testid="needs-admin">
          Creating, listing and revoking API tokens needs the <code>admin</code> permission.
        </p>
      )}
      {can(permissions, "admin") && (
        <CreateTokenForm
          onCreated={(token) => {
            setCreated(token);
            list.reload();
          }}
        />
      )}
      {created && (
        <div className="secret" role="status" aria-label="New token secret">
          <p>
            Token <strong>{created.label}</strong> created. Copy its secret now: it is shown <strong>only once</strong>{" "}
            and cannot be read again.
          </p>
          <p>
            <code className="secret-value">{created.token}</code>{" "}
            <button type="button" onClick={() => navigator.clipboard?.writeText(created.token)}>
              Copy
            </button>{" "}
            <button type="button" onClick={() => setCreated(null)}>
              Done
            </button>
          </p>
        </div>
      )}
      <ErrorBox error={error ?? list.error} />
      {list.data && rows.length === 0 && <p>No token exists yet.</p>}
      {rows.length > 0 && (
        <table>
          <caption>Tokens (secrets are never listed)</caption>
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Id</th>
              <th scope="col">Permissions</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((token) => (
              <tr key={token.id} data-token={token.id}>
                <td>{token.label}</td>
                <td className="mono">{token.id}</td>
                <td>{token.perms?.length ? token.perms.join(", ") : <span className="muted">none</span>}</td>
                <td>
                  <TimeText iso={token.created_at} />
                </td>
                <td>
                  <TimeText iso={token.last_used_at} />
                </td>
                <td>
                  <TimeText iso={token.expires_at} />
                </td>
                <td>
                  {token.revoked_at ? (
                    <>
                      revoked <TimeText iso={token.revoked_at} />
                    </>
                  ) : confirming === token.id ? (
                    <fieldset className="confirm">
                      <legend className="sr-only">Confirm revoking {token.label}</legend>
                      <button type="button" className="danger" onClick={() => revoke(token.id, token.label)}>
                        Yes, revoke
                      </button>{" "}
                      <button
                        type="button"
                        data-keep={token.id}
                        onClick={() => {
                          setConfirming(null);
                          setFocusTo({ revoke: token.id });
                        }}
                      >
                        Keep
                      </button>
                    </fieldset>
                  ) : (
                    <button
                      type="button"
                      data-revoke={token.id}
                      onClick={() => setConfirming(token.id)}
                      aria-label={`Revoke ${token.label}`}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function CreateTokenForm({ onCreated }: { onCreated: (token: CreatedToken) => void }) {
  const [label, setLabel] = useState("");
  const [perms, setPerms] = useState<Permission[]>(["read"]);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onCreated(await call("createToken", { body: { label: label.trim(), perms } }));
      setLabel("");
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="inline-form" onSubmit={submit} aria-label="Create a token">
      <label>
        Label
        <input required value={label} onChange={(e) => setLabel(e.target.value)} />
      </label>
      <fieldset className="inline">
        <legend>Permissions</legend>
        {PERMS.map((perm) => (
          <label key={perm} className="check">
            <input
              type="checkbox"
              checked={perms.includes(perm)}
              onChange={(e) => setPerms(e.target.checked ? [...perms, perm] : perms.filter((p) => p !== perm))}
            />
            {perm}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={busy}>
        Create token
      </button>
      <ErrorBox error={error} />
    </form>
  );
}
