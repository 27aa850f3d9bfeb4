import type { Page, Schedule, ScheduleFire } from "@baton/actions";
import { useState } from "react";
import { call } from "../api.js";
import { ErrorBox } from "../components/error-box.js";
import { Link } from "../components/link.js";
import { type Cursor, Pager } from "../components/pager.js";
import { StatusBadge } from "../components/status-badge.js";
import { TimeText } from "../components/time-text.js";
import { can, type Permissions } from "../permissions.js";
import { useLoad } from "../use-load.js";

/** What a schedule starts: `orders@production`, `orders v3` or `orders (latest)`. */
export function scheduleTarget(s: Pick<Schedule, "process" | "channel" | "version">): string {
  if (s.channel) return `${s.process}@${s.channel}`;
  return s.version ? `${s.process} v${s.version}` : `${s.process} (latest)`;
}

/** Its calendar in one line: the cron expressions, the interval, the zone when not UTC. */
export function scheduleCalendar(s: Pick<Schedule, "cron" | "every" | "time_zone">): string {
  const parts = [...s.cron];
  if (s.every !== null) parts.push(`every ${String(s.every)}`);
  return `${parts.join(" | ")}${s.time_zone === "UTC" ? "" : ` (${s.time_zone})`}`;
}

/** docs/ui.md "Schedules": every schedule, its next fire times, and per schedule its last fires. */
export function SchedulesPage({ permissions }: { permissions: Permissions }) {
  const [cursor, setCursor] = useState<Cursor>({});
  const [open, setOpen] = useState<string | null>(null);
  const list = useLoad<Page<Schedule>>(
    (signal) => call("listSchedules", { query: { ...cursor, limit: 50 }, signal }),
    JSON.stringify(cursor),
  );
  const rows = list.data?.items ?? [];
  return (
    <section>
      <h1>Schedules</h1>
      <ErrorBox error={list.error} />
      <Pager page={list.data?.page} shown={rows.length} onMove={setCursor} label="Schedule pages" />
      {list.data && rows.length === 0 && (
        <p>No schedule exists yet: deploy one with a `kind: schedule` document (docs/schedules.md).</p>
      )}
      {rows.length > 0 && (
        <table>
          <caption>Schedules by name</caption>
          <thead>
            <tr>
              <th scope="col">Schedule</th>
              <th scope="col">Starts</th>
              <th scope="col">Calendar</th>
              <th scope="col">Next fires</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => (
              <tr key={s.name} data-schedule={s.name}>
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
                  <Link to={{ page: "process", name: s.process }}>{scheduleTarget(s)}</Link>
                </td>
                <td>
                  <code>{scheduleCalendar(s)}</code>
                </td>
                <td>
                  {s.next_fire_times.length === 0 ? (
                    "none"
                  ) : (
                    <ul>
                      {s.next_fire_times.slice(0, 3).map((t) => (
                        <li key={t}>
                          <TimeText iso={t} />
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                <td>{s.paused ? <StatusBadge status="paused" /> : "active"}</td>
                <td>
                  <ScheduleButtons schedule={s} permissions={permissions} onDone={list.reload} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open !== null && <ScheduleFires name={open} />}
    </section>
  );
}

function ScheduleButtons({
  schedule,
  permissions,
  onDone,
}: {
  schedule: Schedule;
  permissions: Permissions;
  onDone: () => void;
}) {
  const [error, setError] = useState<unknown>(undefined);
  const [said, setSaid] = useState("");
  const [busy, setBusy] = useState(false);
  if (!can(permissions, "operate")) return null;
  const params = { name: schedule.name };
  async function run(what: () => Promise<string>) {
    setBusy(true);
    setError(undefined);
    try {
      setSaid(await what());
      onDone();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }
  return (
    <div>
      <button
        type="button"
        disabled={busy}
        onClick={() =>
          run(async () => {
            const fire = await call("triggerSchedule", { params });
            return `fired: ${fire.outcome}${fire.instance_id ? ` ${fire.instance_id}` : ""}`;
          })
        }
      >
        Trigger {schedule.name}
      </button>
      <button
        type="button"
        disabled={busy}
        onClick={() =>
          run(async () => {
            const s = await call(schedule.paused ? "resumeSchedule" : "pauseSchedule", { params });
            return s.paused ? "paused" : "resumed";
          })
        }
      >
        {schedule.paused ? "Resume" : "Pause"} {schedule.name}
      </button>
      {said && <span role="status">{said}</span>}
      <ErrorBox error={error} />
    </div>
  );
}

function ScheduleFires({ name }: { name: string }) {
  const shown = useLoad<Schedule>((signal) => call("getSchedule", { params: { name }, signal }), name);
  const fires: ScheduleFire[] = shown.data?.fires ?? [];
  return (
    <section aria-label={`Last fires of ${name}`}>
      <h2>Last fires of {name}</h2>
      <ErrorBox error={shown.error} />
      {shown.data && fires.length === 0 && <p>It has not fired yet.</p>}
      {fires.length > 0 && (
        <table>
          <caption>Newest first</caption>
          <thead>
            <tr>
              <th scope="col">Fire time</th>
              <th scope="col">Origin</th>
              <th scope="col">Outcome</th>
              <th scope="col">Instance</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {fires.map((f) => (
              <tr key={`${f.fire_time}/${f.origin}/${f.outcome}`}>
                <td>
                  <TimeText iso={f.fire_time} />
                </td>
                <td>{f.origin}</td>
                <td>{f.outcome}</td>
                <td>
                  {f.instance_id ? (
                    <>
                      <Link to={{ page: "instance", id: f.instance_id }}>{f.instance_id}</Link>{" "}
                      {f.instance_status && <StatusBadge status={f.instance_status} />}
                    </>
                  ) : (
                    "—"
                  )}
                </td>
                <td>{f.reason ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
