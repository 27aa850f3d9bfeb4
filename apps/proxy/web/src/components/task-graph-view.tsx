import { layoutTaskGraph } from "../task-graph.js";

const MAX_LABEL = 22;

function shorten(label: string): string {
  return label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label;
}

/** The definition's tasks as an SVG graph; `current` is the task the instance sits on. */
export function TaskGraphView({
  definition,
  current,
  status,
}: {
  definition: unknown;
  current?: string;
  status?: string;
}) {
  const graph = layoutTaskGraph(definition, current);
  return (
    <figure className="graph">
      <svg
        width={graph.width}
        height={graph.height}
        viewBox={`0 0 ${graph.width} ${graph.height}`}
        role="img"
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
            className={`edge edge-${edge.kind}`}
            data-from={edge.from}
            data-to={edge.to}
          >
            <title>{`${edge.from} → ${edge.to}${edge.label ? `: ${edge.label}` : ""} (${edge.kind === "error" ? "on_error" : edge.kind})`}</title>
            <path d={edge.path} markerEnd={`url(#arrow-${edge.kind})`} fill="none" />
            {edge.label && (
              <text x={edge.labelX} y={edge.labelY} textAnchor={edge.kind === "error" ? "end" : "start"}>
                {shorten(edge.label)}
              </text>
            )}
          </g>
        ))}
        {graph.nodes.map((node) => (
          <g
            key={node.id}
            className={`node${node.terminal ? " node-end" : ""}${node.current ? ` node-current status-${status ?? "running"}` : ""}`}
            data-task={node.id}
            aria-current={node.current ? "step" : undefined}
          >
            <title>{node.current ? `${node.id} (current task)` : node.id}</title>
            <rect
              x={node.x}
              y={node.y}
              width={node.width}
              height={node.height}
              rx={node.terminal ? node.height / 2 : 6}
            />
            <text
              x={node.x + node.width / 2}
              y={node.y + (node.detail ? 19 : node.height / 2 + 5)}
              textAnchor="middle"
              className="node-id"
            >
              {node.current ? `▶ ${node.id}` : node.id}
            </text>
            {node.detail && (
              <text x={node.x + node.width / 2} y={node.y + 36} textAnchor="middle" className="node-detail">
                {node.detail}
              </text>
            )}
          </g>
        ))}
      </svg>
      <figcaption className="legend">
        <span className="key key-next">next</span> <span className="key key-switch">switch</span>{" "}
        <span className="key key-error">on_error</span>
        {current && (
          <span>
            {" "}
            · current task: <strong>{current}</strong>
          </span>
        )}
      </figcaption>
    </figure>
  );
}
