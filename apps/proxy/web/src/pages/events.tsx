import type { Delivery, Hook, Page, Subscription } from "@baton/actions";
import { useState } from "react";
import { call } from "../api.js";
import { ErrorBox } from "../components/error-box.js";
import { Link } from "../components/link.js";
import { TimeText } from "../components/time-text.js";
import { can, type Permissions } from "../permissions.js";
import { useLoad } from "../use-load.js";

/** docs/ui.md "Events": subscriptions with their delivery log and Redeliver, hooks with their last requests. */
export function EventsPage({ permissions }: { permissions: Permissions }) {
  const [open, setOpen] = useState<string | null>(null);
  const subs = useLoad<Page<Subscription>>(
    (signal) => call("listSubscriptions", { query: { limit: 100 }, signal }),
    "",
  );
  const hooks = useLoad<Page<Hook>>((signal) => call("listHooks", { query: { limit: 100 }, signal }), "");
  const rows = subs.data?.items ?? [];
  return (
    <section>
      <h1>Events</h1>
      <h2>Subscriptions</h2>
      <ErrorBox error={subs.error} />
      {subs.data && rows.length === 0 && <p>No subscription exists yet (docs/events.md).</p>}
      {rows.length > 0 && (
        <table>
          <caption>Subscriptions by name</caption>
          <thead>
            <tr>
              <th scope="col">Subscription</th>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => (
              <tr key={s.name} data-subscription={s.name}>
                <td>
                  <button
                    type="button"
                    aria-expanded={open === s.name}
                    onClick={() => setOpen(open === s.name ? null : s.name)}
                  >
                    {s.name}
                  </button>
                </td>
                <td>
                  <code>{s.url}</code>
                </td>
                <td>{s.events.join(", ")}</td>
                <td>
                  {s.suspended
                    ? `suspended: ${s.suspended_reason ?? ""}`
                    : s.pending > 0
                      ? `${s.pending} pending`
                      : "ok"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open !== null && <DeliveryLog name={open} canRedeliver={can(permissions, "deploy")} />}
      <h2>Hooks</h2>
      <ErrorBox error={hooks.error} />
      {hooks.data && hooks.data.items.length === 0 && <p>No hook exists yet (docs/events.md "Hooks").</p>}
      {(hooks.data?.items ?? []).map((h) => (
        <HookRequests key={h.name} hook={h} />
      ))}
    </section>
  );
}

function DeliveryLog({ name, canRedeliver }: { name: string; canRedeliver: boolean }) {
  const log = useLoad<Page<Delivery>>(
    (signal) => call("listDeliveries", { params: { name }, query: { limit: 50 }, signal }),
    name,
  );
  const [said, setSaid] = useState("");
  const [error, setError] = useState<unknown>(undefined);
  const items = log.data?.items ?? [];
  async function redeliver(id: string) {
    setError(undefined);
    try {
      const r = await call("redeliver", { params: { name }, body: { delivery_id: id } });
      setSaid(`${r.queued} queued`);
      log.reload();
    } catch (e) {
      setError(e);
    }
  }
  return (
    <section aria-label={`Deliveries of ${name}`}>
      <h3>Deliveries of {name}</h3>
      <ErrorBox error={log.error ?? error} />
      {said && <span role="status">{said}</span>}
      {log.data && items.length === 0 && <p>Nothing was recorded for it yet.</p>}
      {items.length > 0 && (
        <table>
          <caption>Newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Latency</th>
              <th scope="col">Last error</th>
              <th scope="col">Recorded</th>
              {canRedeliver && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <tr key={d.id} data-delivery={d.id}>
                <td>
                  <code>{d.event_id}</code>
                </td>
                <td>{d.type}</td>
                <td>{d.status}</td>
                <td>{d.attempts}</td>
                <td>{d.latency_ms === null ? "—" : `${d.latency_ms} ms`}</td>
                <td>{d.last_error ?? ""}</td>
                <td>
                  <TimeText iso={d.created_at} />
                </td>
                {canRedeliver && (
                  <td>
                    <button type="button" onClick={() => void redeliver(d.id)}>
                      Redeliver {d.event_id}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function HookRequests({ hook }: { hook: Hook }) {
  const shown = useLoad<Hook>((signal) => call("getHook", { params: { name: hook.name }, signal }), hook.name);
  const requests = shown.data?.last_requests ?? [];
  return (
    <section aria-label={`Hook ${hook.name}`}>
      <h3>
        {hook.name}: <code>{hook.path}</code> ({hook.verifier})
      </h3>
      <ErrorBox error={shown.error} />
      {shown.data && requests.length === 0 && <p>It has acted on no request yet.</p>}
      {requests.length > 0 && (
        <table>
          <caption>Last requests, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Delivery</th>
              <th scope="col">Received</th>
              <th scope="col">Outcome</th>
              <th scope="col">Instance</th>
            </tr>
          </thead>
          <tbody>
            {requests.map((r) => (
              <tr key={r.delivery_id}>
                <td>
                  <code>{r.delivery_id}</code>
                </td>
                <td>
                  <TimeText iso={r.received_at} />
                </td>
                <td>{r.outcome}</td>
                <td>
                  {r.instance_id ? <Link to={{ page: "instance", id: r.instance_id }}>{r.instance_id}</Link> : "—"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
