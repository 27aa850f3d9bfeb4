import { call } from "../api.js";
import { Actor } from "../components/actor.js";
import { ErrorBox } from "../components/error-box.js";
import { JsonBlock } from "../components/json-block.js";
import { Link } from "../components/link.js";
import { TaskGraphView } from "../components/task-graph-view.js";
import { TimeText } from "../components/time-text.js";
import { useLoad } from "../use-load.js";

/** One stored version: its graph and its canonical JSON. */
export function VersionPage({ name, version }: { name: string; version: number }) {
  const stored = useLoad(
    (signal) => call("getDefinition", { params: { name, version }, signal }),
    `${name}@${version}`,
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
          <TaskGraphView definition={stored.data.definition} />
          <h2>Canonical JSON</h2>
          <JsonBlock value={stored.data.definition} label={`Canonical JSON of ${name} v${version}`} />
        </>
      )}
    </section>
  );
}
