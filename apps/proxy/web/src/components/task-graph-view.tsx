import { useState } from "react";
import { END_NODE, RAISE_NODE, layoutTaskGraph } from "../task-graph.js";
import { JsonBlock } from "./json-block.js";

/**
 * The nodes and edges (`from>to`) of the path taken; a settled instance's last task leads to
 * the end node (completed) or the raise node (raised).
 */
function takenEdges(path: readonly string[] | undefined, status: string | undefined) {
  const nodes = new Set(path ?? []);
  const edges = new Set<string>();
  if (!path?.length) return { nodes, edges };
  for (let i = 1; i < path.length; i++) edges.add(`${path[i - 1]}>${path[i]}`);
  const last = path[path.length - 1]!;
  const exit = status === "completed" ? END_NODE : status === "raised" ? RAISE_NODE : undefined;
  if (exit) {
    nodes.add(exit);
    edges.add(`${last}>${exit}`);
  }
  return { nodes, edges };
}

/** The definition's tasks as an SVG graph; `current` is the task the instance sits on. */
export function TaskGraphView({
  definition,
  current,
  status,
  path,
  notes,
}: {
  definition: unknown;
  /** Text ending each task's detail line, by task id (the instances there now, on a version's page). */
  notes?: Readonly<Record<string, string>>;
  current?: string;
  status?: string;
  /** The tasks the instance went through, in order (src/timeline.ts): marked with the edges between them. */
  path?: readonly string[];
}) {
  const graph = layoutTaskGraph(definition, current, notes);
  const taken = takenEdges(path, status);
  // The task whose definition is shown under the graph (a node clicked, or Enter/Space on it).
  const [selected, setSelected] = useState<string | null>(null);
  const tasks = (definition as { tasks?: { id?: string }[] } | null)?.tasks ?? [];
  const selectedTask = tasks.find((task) => task.id === selected);
  return (
    <figure className="graph">
      {/* biome-ignore lint/a11y/useSemanticElements: an <svg> cannot be a <fieldset> */}
      <svg
        width={graph.width}
        height={graph.height}
        viewBox={`0 0 ${graph.width} ${graph.height}`}
        // A group, not an img: an img's content is presentational, and the task nodes are buttons.
        role="group"
        aria-label={`Task graph${current ? `, current task ${current}` : ""}`}
      >
        <defs>
          {["next", "switch", "error"].map((kind) => (
            <marker
              key={kind}
              id={`arrow-${kind}`}
              viewBox="0 0 10 10"
              refX="10"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path d="M 0 0 L 10 5 L 0 10 z" className={`arrow-${kind}`} />
            </marker>
          ))}
        </defs>
        {graph.edges.map((edge) => (
          <g
            key={`${edge.from}>${edge.to}>${edge.kind}`}
            className={`edge edge-${edge.kind}${taken.edges.has(`${edge.from}>${edge.to}`) ? " edge-taken" : ""}`}
            data-from={edge.from}
            data-to={edge.to}
          >
            <title>{`${edge.from} → ${edge.to}${edge.label ? `: ${edge.label}` : ""} (${edge.kind === "error" ? "on_error" : edge.kind})`}</title>
            <path d={edge.path} markerEnd={`url(#arrow-${edge.kind})`} fill="none" />
            {edge.label && (
              <>
                <path d={edge.leader} className="leader" fill="none" />
                <text x={edge.labelX} y={edge.labelY} textAnchor={edge.anchor}>
                  {edge.text}
                </text>
              </>
            )}
          </g>
        ))}
        {graph.nodes.map((node) => (
          <g
            key={node.id}
            className={`node${taken.nodes.has(node.id) ? " node-visited" : ""}${node.terminal ? " node-end" : ""}${node.id === RAISE_NODE ? " node-raise" : ""}${node.current ? ` node-current status-${status ?? "running"}` : ""}${node.id === selected ? " node-selected" : ""}`}
            data-task={node.id}
            aria-current={node.current ? "step" : undefined}
            {...(node.terminal
              ? {}
              : {
                  tabIndex: 0,
                  role: "button",
                  "aria-pressed": node.id === selected,
                  // Starts with the node's visible text (WCAG 2.5.3, axe label-content-name-mismatch). No
                  // status word here: "x, paused" would also be found as a "Pause" button.
                  "aria-label": `${node.id}${node.detail ? ` ${node.detail}` : ""}${node.current ? ", current task" : ""}: show its definition`,
                  onClick: () => setSelected(node.id === selected ? null : node.id),
                  onKeyDown: (event: React.KeyboardEvent) => {
                    if (event.key !== "Enter" && event.key !== " ") return;
                    event.preventDefault();
                    setSelected(node.id === selected ? null : node.id);
                  },
                })}
          >
            {/* A task node is named by its aria-label; a <title> would add to the text axe compares it with. */}
            {node.terminal && <title>{node.id === RAISE_NODE ? "raise or panic" : node.id}</title>}
            <rect
              x={node.x}
              y={node.y}
              width={node.width}
              height={node.height}
              rx={node.terminal ? node.height / 2 : 6}
            />
            {node.current && (
              // A drawn triangle, not a "▶" character: no text that the accessible name would have to repeat.
              <path d={`M ${node.x + 10} ${node.y + 9} l 9 5.5 l -9 5.5 z`} className="current-mark" />
            )}
            {/* One <text> with a space between its lines: two <text>s read as one word ("preparefetch") to axe. */}
            <text textAnchor="middle">
              <tspan
                x={node.x + node.width / 2}
                y={node.y + (node.detail ? 19 : node.height / 2 + 5)}
                className="node-id"
              >
                {node.id === RAISE_NODE ? "raise" : node.id}
              </tspan>
              {node.detail && (
                <>
                  {" "}
                  <tspan x={node.x + node.width / 2} y={node.y + 36} className="node-detail">
                    {node.detail}
                  </tspan>
                </>
              )}
            </text>
          </g>
        ))}
      </svg>
      <figcaption className="legend">
        <span className="key key-next">next</span> <span className="key key-switch">switch</span>{" "}
        <span className="key key-error">on_error</span> · select a task to see its definition
        {current && (
          <span>
            {" "}
            · current task: <strong>{current}</strong>
          </span>
        )}
      </figcaption>
      {graph.edges.some((edge) => edge.label) && (
        // Drawn labels longer than MAX_LABEL are shortened; every branch's full condition is readable here, not only on hover.
        <details className="branches">
          <summary>Branch conditions in full</summary>
          <ul aria-label="Branch conditions">
            {graph.edges
              .filter((edge) => edge.label)
              .map((edge) => (
                <li key={`${edge.from}>${edge.to}>${edge.kind}`}>
                  {edge.from} → {edge.to === RAISE_NODE ? "raise" : edge.to} (
                  {edge.kind === "error" ? "on_error" : edge.kind}
                  ): <code>{edge.label}</code>
                </li>
              ))}
          </ul>
        </details>
      )}
      {selectedTask && (
        <section className="task-definition" aria-label={`Task ${selected}`}>
          <h3>
            Task {selected}
            {selected === current ? ` (current task, instance ${status ?? "running"})` : ""}
          </h3>
          <JsonBlock value={selectedTask} label={`Definition of task ${selected}`} />
        </section>
      )}
    </figure>
  );
}
