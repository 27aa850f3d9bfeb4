import type { InstanceCounts } from "@baton/actions";
import { call } from "../api.js";
import { Actor } from "../components/actor.js";
import { ErrorBox } from "../components/error-box.js";
import { JsonBlock } from "../components/json-block.js";
import { Link } from "../components/link.js";
import { TaskGraphView } from "../components/task-graph-view.js";
import { TimeText } from "../components/time-text.js";
import { POLL_MS, useLoad } from "../use-load.js";

const LIVE = new Set(["running", "pausing", "paused", "failing"]);

/** "3 live · 1 failed · 2 raised" per task, from counts by task and status. */
function taskNotes(counts: InstanceCounts): Record<string, string> {
  const byTask = new Map<string, { live: number; failed: number; raised: number }>();
  for (const group of counts.groups) {
    const entry = byTask.get(group.task ?? "") ?? { live: 0, failed: 0, raised: 0 };
    if (LIVE.has(group.status ?? "")) entry.live += group.count;
    else if (group.status === "failed") entry.failed += group.count;
    else if (group.status === "raised") entry.raised += group.count;
    byTask.set(group.task ?? "", entry);
  }
  return Object.fromEntries(
    [...byTask].map(([task, n]) => [
      task,
      [n.live ? `${n.live} live` : "", n.failed ? `${n.failed} failed` : "", n.raised ? `${n.raised} raised` : ""]
        .filter(Boolean)
        .join(" · "),
    ]),
  );
}

/** One stored version: its graph (with where its instances are now) and its canonical JSON. */
export function VersionPage({ name, version }: { name: string; version: number }) {
  const stored = useLoad(
    (signal) => call("getDefinition", { params: { name, version }, signal }),
    `${name}@${version}`,
  );
  // By task: a scan of this version's live and failed rows (docs/api.md "Counts"), not of the table.
  const where = useLoad<InstanceCounts>(
    (signal) =>
      call("countInstances", {
        query: {
          process: name,
          version,
          children: true,
          status: "running,pausing,paused,failing,failed,raised",
          by: "task,status",
        },
        signal,
      }),
    `where:${name}@${version}`,
    POLL_MS,
  );
  return (
    <section>
      <p>
        <Link to={{ page: "definitions" }}>Definitions</Link> / <Link to={{ page: "process", name }}>{name}</Link> /
      </p>
      <h1>
        {name} v{version}
      </h1>
      <ErrorBox error={stored.error} />
      {stored.data && (
        <>
          <p>
            Registered <TimeText iso={stored.data.created_at} />
            {stored.data.actor ? (
              <>
                {" "}
                by <Actor actor={stored.data.actor} label={stored.data.actor_label} />
              </>
            ) : (
              ""
            )}
            .{" "}
            {version > 1 && (
              <Link to={{ page: "compare", name, from: version - 1, to: version }}>Compare with v{version - 1}</Link>
            )}
          </p>
          {where.data && where.data.total > 0 && (
            <p className="muted" data-testid="where-caption">
              On the tasks: the instances of v{version} there now (children included), live (running, pausing, paused,
              failing), failed and raised.
            </p>
          )}
          <TaskGraphView definition={stored.data.definition} notes={where.data ? taskNotes(where.data) : undefined} />
          <h2>Canonical JSON</h2>
          <JsonBlock value={stored.data.definition} label={`Canonical JSON of ${name} v${version}`} />
        </>
      )}
    </section>
  );
}
