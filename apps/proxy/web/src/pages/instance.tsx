import type { InstanceDetail, InstanceStatusView } from "@baton/actions";
import { useState } from "react";
import { call } from "../api.js";
import { ChildrenTree } from "../components/children-tree.js";
import { ErrorBox } from "../components/error-box.js";
import { ChildFailuresView, useChildFailures } from "../components/failed-children.js";
import { JsonBlock } from "../components/json-block.js";
import { LifecyclePanel } from "../components/lifecycle-panel.js";
import { Link } from "../components/link.js";
import { LogsPanel } from "../components/logs-panel.js";
import { StatusBadge } from "../components/status-badge.js";
import { TaskGraphView } from "../components/task-graph-view.js";
import { TimeText } from "../components/time-text.js";
import { ChildrenByStatus } from "../components/children-by-status.js";
import { TimelineView, useTimeline } from "../components/timeline-view.js";
import { pathTaken } from "../timeline.js";
import { childPlaces } from "../children.js";
import { delaysOf, mayNeedForce, unsettledCount } from "../instance-facts.js";
import type { Permissions } from "../permissions.js";
import { isSettled, POLL_MS, useLoad } from "../use-load.js";

interface Views {
  status: InstanceStatusView;
  detail: InstanceDetail;
}

function StateView({ detail }: { detail: InstanceDetail }) {
  const { input, outputs, _children, ...rest } = detail.state;
  const engineKeys = Object.entries(rest).filter(([, v]) => v !== undefined);
  const outputEntries = Object.entries(outputs ?? {});
  return (
    <section aria-labelledby="state-heading">
      <h2 id="state-heading">State</h2>
      <h3>Input</h3>
      <JsonBlock value={input ?? null} label="Input" />
      <h3>Outputs</h3>
      {outputEntries.length === 0 ? (
        <p className="muted">No task has produced an output yet.</p>
      ) : (
        outputEntries.map(([task, value]) => (
          <details key={task} open className="output" data-output={task}>
            <summary>{task}</summary>
            <JsonBlock value={value} label={`Output of ${task}`} />
          </details>
        ))
      )}
      {engineKeys.length > 0 && (
        <details>
          <summary>Engine keys</summary>
          <JsonBlock value={Object.fromEntries(engineKeys)} label="Engine keys" />
        </details>
      )}
      {detail.objects.length > 0 && (
        <>
          <h3>Stored objects</h3>
          <p className="muted">Values too large to splice into the state; open one to fetch it.</p>
          <ul>
            {detail.objects.map((object) => (
              <li key={object.path.join(".")}>
                <code>{object.path.join(".")}</code>{" "}
                <a href={`/api/objects/${object.ref}`} target="_blank" rel="noreferrer">
                  {object.ref.slice(0, 12)}… ({object.size} bytes)
                </a>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

export function InstancePage({
  id,
  search,
  permissions,
  traceUrl,
}: {
  id: string;
  search: string;
  permissions: Permissions;
  traceUrl: string | null;
}) {
  // A settled instance changes no more by itself: polling stops once it is seen settled.
  const [settledId, setSettledId] = useState<string | null>(null);
  const views = useLoad<Views>(
    async (signal) => {
      const [status, detail] = await Promise.all([
        call("getInstance", { params: { id }, signal }),
        call("getInstanceDetail", { params: { id }, query: { resolve: true }, signal }),
      ]);
      setSettledId(isSettled(status.status) ? id : null);
      return { status, detail };
    },
    id,
    settledId === id ? undefined : POLL_MS,
  );
  const status = views.data?.status;
  const detail = views.data?.detail;
  const failures = useChildFailures(id, settledId !== id);
  // The wait's deadline and claimer, as times (the engine keys hold them as raw unix ms).
  const parkedExternal = detail?.phase === "external";
  const wait = useLoad(
    (signal) =>
      parkedExternal
        ? call("listExternalTasks", { query: { instance_id: id }, signal }).then((page) => page.items[0] ?? null)
        : Promise.resolve(null),
    `${id}:${parkedExternal}`,
    parkedExternal && settledId !== id ? POLL_MS : undefined,
  );
  const firstFailed = failures.data?.failed.items[0];
  const timeline = useTimeline(id, settledId !== id);
  const definition = useLoad(
    (signal) =>
      status
        ? call("getDefinition", { params: { name: status.process, version: status.version }, signal })
        : Promise.resolve(null),
    status ? `${status.process}@${status.version}` : "",
  );

  if (!views.data) {
    return (
      <section>
        <h1>Instance {id}</h1>
        <ErrorBox error={views.error} />
        {!views.error && <p className="loading">Loading…</p>}
      </section>
    );
  }
  const isRoot = detail!.parent_id === null;
  return (
    <section className="instance">
      <h1>
        Instance <span className="mono">{id}</span>
      </h1>
      <ErrorBox error={views.error} />
      <dl className="facts" aria-label="Status">
        <dt>Process</dt>
        <dd>
          <Link to={{ page: "version", name: status!.process, version: status!.version }}>
            {status!.process} v{status!.version}
          </Link>
        </dd>
        <dt>Business key</dt>
        <dd className="mono" data-testid="business-key">
          {status!.key ?? (detail!.parent_id === null ? "none" : "the root's (open the root)")}
        </dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={status!.status} />
        </dd>
        <dt>Task</dt>
        <dd>{status!.task}</dd>
        {detail!.phase && (
          <>
            <dt>Phase</dt>
            <dd>{detail!.phase}</dd>
          </>
        )}
        {detail!.waiting_for && (
          <>
            <dt>Waiting for</dt>
            <dd data-testid="flow-wait">
              {detail!.waiting_for.reason === "concurrency" ? "a concurrency slot of " : "a start permit of "}
              <span className="mono">{detail!.waiting_for.scope}</span> with key{" "}
              <span className="mono">{detail!.waiting_for.key}</span> (limit {detail!.waiting_for.limit}) since{" "}
              <TimeText iso={detail!.waiting_for.since} />
            </dd>
          </>
        )}
        {wait.data && (
          <>
            <dt>Waiting since</dt>
            <dd>
              <TimeText iso={wait.data.waiting_since} />
            </dd>
            <dt>Deadline</dt>
            <dd data-testid="wait-deadline">
              {wait.data.deadline ? <TimeText iso={wait.data.deadline} /> : "none (no timeout)"}
            </dd>
            <dt>Claimed by</dt>
            <dd>
              {wait.data.claimed_by ? (
                <>
                  {wait.data.claimed_by} until <TimeText iso={wait.data.claim_expires} />
                </>
              ) : (
                "nobody (claimable now)"
              )}
            </dd>
            <dt>Resolve</dt>
            <dd>
              <Link to={{ page: "task", instance: id }}>Open the task</Link>
            </dd>
          </>
        )}
        <dt>Retries</dt>
        <dd>{status!.retry_count}</dd>
        {status!.error_code ? (
          <>
            <dt>Error</dt>
            <dd className="error-text">
              <code>{status!.error_code}</code> {status!.error_message}
            </dd>
          </>
        ) : (
          firstFailed &&
          (status!.status === "failing" || status!.status === "failed") && (
            // A parent failing because of a child names that child and its error.
            <>
              <dt>Error</dt>
              <dd className="error-text">
                child{" "}
                <Link to={{ page: "instance", id: firstFailed.id }} className="mono">
                  {firstFailed.id}
                </Link>{" "}
                ({firstFailed.process}) {firstFailed.status} on {firstFailed.task}:{" "}
                <code>{firstFailed.error_code}</code> {firstFailed.error_message}
              </dd>
            </>
          )
        )}
        <dt>Created</dt>
        <dd>
          <TimeText iso={status!.created_at} />
        </dd>
        <dt>Updated</dt>
        <dd>
          <TimeText iso={status!.updated_at} />
        </dd>
        {!isRoot && (
          <>
            <dt>Parent</dt>
            <dd>
              <Link to={{ page: "instance", id: detail!.parent_id! }} className="mono">
                {detail!.parent_id}
              </Link>{" "}
              (root{" "}
              <Link to={{ page: "instance", id: detail!.root_id }} className="mono">
                {detail!.root_id}
              </Link>
              )
            </dd>
          </>
        )}
      </dl>
      <LifecyclePanel
        id={id}
        rootId={detail!.root_id}
        process={status!.process}
        version={status!.version}
        task={status!.task}
        status={status!.status}
        isRoot={isRoot}
        offerForce={definition.data ? mayNeedForce(definition.data.definition, status!.task) : undefined}
        unsettledChildren={failures.data ? unsettledCount(failures.data.counts.groups) : undefined}
        permissions={permissions}
        onChanged={views.reload}
      />
      {status!.output !== undefined && (
        <section aria-labelledby="output-heading">
          <h2 id="output-heading">Output</h2>
          <JsonBlock value={status!.output} label="Instance output" />
        </section>
      )}
      <section aria-labelledby="graph-heading">
        <h2 id="graph-heading">Definition</h2>
        <ErrorBox error={definition.error} />
        {definition.data && (
          <TaskGraphView
            definition={definition.data.definition}
            current={status!.task}
            status={status!.status}
            path={timeline.data ? pathTaken(timeline.data.visits) : undefined}
          />
        )}
      </section>
      <TimelineView
        loaded={timeline}
        wakeAt={status!.wake_at}
        delays={definition.data ? delaysOf(definition.data.definition) : undefined}
      />
      <StateView detail={detail!} />
      <section aria-labelledby="children-heading">
        <h2 id="children-heading">Children</h2>
        <ChildFailuresView loaded={failures} places={childPlaces(detail!.state._children)} />
        {failures.data && failures.data.counts.total > 0 && (
          <ChildrenByStatus id={id} search={search} counts={failures.data.counts} live={settledId !== id} />
        )}
        <ChildrenTree childMap={detail!.state._children} />
      </section>
      <LogsPanel id={id} search={search} isRoot={isRoot} live={!isSettled(status!.status)} traceUrl={traceUrl} />
    </section>
  );
}
