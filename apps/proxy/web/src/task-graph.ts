// Over 300 lines on purpose: the passes (edges, lanes, nodes, paths, label columns) share the
// layout's constants and the row arithmetic, and are read together.
// The definition as a graph: tasks top to bottom in their order, the fall-through flow as
// straight arrows down the middle, switch jumps routed on the right and on_error edges on
// the left, each in its own lane so that overlapping jumps never share a vertical segment.
// Edge labels sit in a column of their own beyond the outermost lane on their side (switch
// labels right, on_error labels left), one line each, stacked so that no two overlap, and
// joined to their edge by a dotted leader; the column is as wide as its longest label, so no
// label is cut at the drawing's edge (docs/ui.md "Instance — #/instances/<id>").

export type EdgeKind = "next" | "switch" | "error";

export interface GraphNode {
  id: string;
  /** A second line: the action type and retry budget. */
  detail: string;
  x: number;
  y: number;
  width: number;
  height: number;
  terminal: boolean;
  current: boolean;
}

export interface GraphEdge {
  from: string;
  to: string;
  kind: EdgeKind;
  /** The whole label (conditions, codes, raise); "" for none. */
  label: string;
  /** The label as drawn: shortened to MAX_LABEL characters. */
  text: string;
  /** SVG path data, ending at the target's border (the arrow head goes there). */
  path: string;
  /** Where the label's text starts ("start") or ends ("end", on the left), on its baseline. */
  labelX: number;
  labelY: number;
  anchor: "start" | "end";
  /** SVG path data of the dotted line from the edge to its label; "" without a label. */
  leader: string;
}

export interface TaskGraph {
  width: number;
  height: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** The node that every `end` (success) leads to. Not a valid task id (reserved). */
export const END_NODE = "end";

/**
 * The node every `raise` and `panic` leads to, drawn apart from `end` so a raise never looks
 * like success. Its id has a character no task id may hold.
 */
export const RAISE_NODE = "!raise";

/** The narrowest node; a longer task id widens every node of the graph (they share one column). */
const NODE_W = 220;
/**
 * A task id is drawn in a 13 px monospace font (look.css `.graph .node .node-id`): 0.6 em per
 * character (7.8 px), rounded up; the current task's mark adds two characters.
 */
export const NODE_CHAR_W = 8;
/** The detail line is 11 px sans-serif: at most 0.62 em per character. */
const DETAIL_CHAR_W = 7;
const NODE_H = 46;
const ROW = 80;
const MARGIN = 24;
const LANE_GAP = 16;
/**
 * Edge labels are drawn in an 11 px monospace font (styles.css `.graph .edge text`), so a
 * label's width is known here: 0.6 em per character (6.6 px), rounded up for safety.
 */
export const LABEL_CHAR_W = 7;
/** Longer labels are shortened in the drawing; "Branch conditions in full" lists them whole. */
export const MAX_LABEL = 40;
/** Vertical distance between two stacked labels' baselines (11 px text). */
export const LABEL_LINE = 14;
const LABEL_GAP = 8;

/** A label as drawn: at most MAX_LABEL characters, an ellipsis marking a cut. */
export function shortLabel(label: string): string {
  return label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label;
}

type Json = unknown;
interface RawEdge {
  from: number;
  to: number;
  kind: EdgeKind;
  label: string;
}

function asArray(value: Json): Json[] {
  return Array.isArray(value) ? value : [];
}

function field(value: Json, key: string): Json {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, Json>)[key]
    : undefined;
}

function text(value: Json): string {
  return typeof value === "string" ? value : "";
}

/** Resolves a goto (`next`, `end`, `$id`) to a row index; undefined for an unknown target. */
function target(goto: string, from: number, index: Map<string, number>, count: number): number | undefined {
  if (goto === "next") return from + 1;
  if (goto === "end") return count;
  if (goto.startsWith("$")) return index.get(goto.slice(1));
  return undefined;
}

function outcomeOf(
  rule: Json,
  from: number,
  index: Map<string, number>,
  count: number,
): { to: number; label: string } | undefined {
  const goto = field(rule, "goto");
  if (typeof goto === "string") {
    const to = target(goto, from, index, count);
    return to === undefined ? undefined : { to, label: "" };
  }
  for (const verb of ["raise", "panic"] as const) {
    const clause = field(rule, verb);
    if (clause !== undefined) return { to: count + 1, label: `${verb} ${text(field(clause, "code"))}`.trim() };
  }
  return undefined;
}

function switchEdges(task: Json, from: number, index: Map<string, number>, count: number): RawEdge[] {
  const sw = field(task, "switch");
  if (sw === undefined || (Array.isArray(sw) && sw.length === 0))
    return [{ from, to: from + 1, kind: "next", label: "" }];
  if (typeof sw === "string") {
    const to = target(sw, from, index, count);
    return to === undefined ? [] : [{ from, to, kind: to === from + 1 ? "next" : "switch", label: "" }];
  }
  const edges: RawEdge[] = [];
  for (const branch of asArray(sw)) {
    const outcome = outcomeOf(branch, from, index, count);
    if (!outcome) continue;
    const condition = text(field(branch, "case"));
    const label = [condition || "default", outcome.label].filter(Boolean).join(" → ");
    edges.push({ from, to: outcome.to, kind: "switch", label });
  }
  return edges;
}

function errorEdges(task: Json, from: number, index: Map<string, number>, count: number): RawEdge[] {
  const edges: RawEdge[] = [];
  for (const rule of asArray(field(task, "on_error"))) {
    const outcome = outcomeOf(rule, from, index, count);
    if (!outcome) continue;
    const codes = asArray(field(rule, "code")).map(text).filter(Boolean);
    const label = [codes.length ? codes.join(", ") : "any error", outcome.label].filter(Boolean).join(" → ");
    edges.push({ from, to: outcome.to, kind: "error", label });
  }
  return edges;
}

function detailOf(task: Json): string {
  const action = field(task, "action");
  const type = text(field(action, "type")) || "route";
  const parts = [type === "fetch" ? `fetch ${text(field(action, "method")).toUpperCase() || "POST"}` : type];
  const retries = asArray(field(task, "on_error"))
    .map((rule) => {
      const retry = field(rule, "retry") ?? field(rule, "retries");
      return typeof retry === "number" ? retry : Number(field(retry, "retries") ?? 0);
    })
    .reduce((max, n) => Math.max(max, Number.isFinite(n) ? n : 0), 0);
  if (retries > 0) parts.push(`retry ×${retries}`);
  if (field(task, "only_once") === true) parts.push("only once");
  return parts.join(" · ");
}

/** Straight down to the next row: drawn in the middle. A switch to the next row stays straight too. */
function isStraight(edge: RawEdge): boolean {
  return edge.to === edge.from + 1 && edge.kind !== "error";
}

/** Greedy lane packing: shortest spans first get the innermost lane that none of their rows use. */
function assignLanes(edges: RawEdge[]): number[] {
  const order = edges.map((_, i) => i).sort((a, b) => span(edges[a]) - span(edges[b]) || a - b);
  const used: Array<Array<[number, number]>> = [];
  const lanes = new Array<number>(edges.length).fill(0);
  for (const i of order) {
    const lo = Math.min(edges[i].from, edges[i].to);
    const hi = Math.max(edges[i].from, edges[i].to);
    let lane = 0;
    while (used[lane]?.some(([a, b]) => lo <= b && a <= hi)) lane++;
    (used[lane] ??= []).push([lo, hi]);
    lanes[i] = lane;
  }
  return lanes;
}

function span(edge: RawEdge): number {
  return Math.abs(edge.to - edge.from);
}

/**
 * Lays out the tasks of a definition; `current` marks the task an instance sits on; `notes`
 * (by task id) end a node's detail line, e.g. how many instances sit there ("3 live · 1 failed").
 */
export function layoutTaskGraph(
  definition: Json,
  current?: string,
  notes: Readonly<Record<string, string>> = {},
): TaskGraph {
  const tasks = asArray(field(definition, "tasks"));
  const count = tasks.length;
  const ids = tasks.map((task, i) => text(field(task, "id")) || `#${i}`);
  const details = tasks.map((task, i) => [detailOf(task), notes[ids[i]!]].filter(Boolean).join(" · "));
  // As wide as the longest task id (up to 64 characters) and its detail line, so none is cut.
  const nodeW = Math.max(
    NODE_W,
    ...ids.map((id) => (id.length + 2) * NODE_CHAR_W + 16),
    ...details.map((detail) => detail.length * DETAIL_CHAR_W + 24),
  );
  const index = new Map(ids.map((id, i) => [id, i]));
  const raw: RawEdge[] = [];
  tasks.forEach((task, i) => {
    raw.push(...switchEdges(task, i, index, count), ...errorEdges(task, i, index, count));
  });
  // Several branches to the same place read better as one arrow with the labels joined.
  const merged = new Map<string, RawEdge>();
  for (const edge of raw) {
    const key = `${edge.from}>${edge.to}>${isStraight(edge) ? "straight" : edge.kind}`;
    const seen = merged.get(key);
    if (!seen) merged.set(key, { ...edge });
    else if (edge.label) seen.label = seen.label ? `${seen.label}; ${edge.label}` : edge.label;
  }
  const edges = [...merged.values()];
  const right = edges.filter((e) => !isStraight(e) && e.kind !== "error");
  const left = edges.filter((e) => e.kind === "error");
  const rightLanes = assignLanes(right);
  const leftLanes = assignLanes(left);
  const leftLanesWidth = left.length ? (Math.max(...leftLanes) + 1) * LANE_GAP : 0;
  const rightLanesWidth = right.length ? (Math.max(...rightLanes) + 1) * LANE_GAP : 0;
  // Every labelled edge that is not an on_error one, straight ones included, labels on the right.
  const labelRoom = (side: RawEdge[]) => {
    const longest = Math.max(0, ...side.filter((e) => e.label).map((e) => shortLabel(e.label).length));
    return longest ? LABEL_GAP + longest * LABEL_CHAR_W : 0;
  };
  const leftWidth = leftLanesWidth + labelRoom(left);
  const rightWidth = rightLanesWidth + labelRoom(edges.filter((e) => e.kind !== "error"));
  const x = MARGIN + leftWidth;
  const raises = edges.some((e) => e.to === count + 1);
  const rowY = (row: number) => MARGIN + row * ROW;

  const nodes: GraphNode[] = ids.map((id, i) => ({
    id,
    detail: details[i]!,
    x,
    y: rowY(i),
    width: nodeW,
    height: NODE_H,
    terminal: false,
    current: id === current,
  }));
  nodes.push({
    id: END_NODE,
    detail: "",
    x: x + nodeW / 4,
    y: rowY(count),
    width: nodeW / 2,
    height: NODE_H - 12,
    terminal: true,
    current: false,
  });
  if (raises)
    nodes.push({
      id: RAISE_NODE,
      detail: "",
      x: x + nodeW / 4,
      y: rowY(count + 1),
      width: nodeW / 2,
      height: NODE_H - 12,
      terminal: true,
      current: false,
    });
  const mid = x + nodeW / 2;
  const name = (row: number) => (row === count ? END_NODE : row === count + 1 ? RAISE_NODE : ids[row]);

  const rightColumn = x + nodeW + rightLanesWidth + LABEL_GAP;
  const leftColumn = x - leftLanesWidth - LABEL_GAP;
  const out: GraphEdge[] = [];
  // The point on each labelled edge its leader starts from, and the height its label would like.
  const wanted: { edge: GraphEdge; x: number; y: number }[] = [];
  for (const edge of edges) {
    const fromY = rowY(edge.from);
    const toY = rowY(edge.to);
    const drawn = {
      from: name(edge.from),
      to: name(edge.to),
      kind: edge.kind,
      label: edge.label,
      text: shortLabel(edge.label),
      labelX: 0,
      labelY: 0,
      anchor: edge.kind === "error" ? ("end" as const) : ("start" as const),
      leader: "",
    };
    if (isStraight(edge)) {
      const gapY = fromY + NODE_H + (ROW - NODE_H) / 2;
      const straight = { ...drawn, path: `M ${mid} ${fromY + NODE_H} L ${mid} ${toY}` };
      out.push(straight);
      if (edge.label) wanted.push({ edge: straight, x: mid, y: gapY });
      continue;
    }
    const onLeft = edge.kind === "error";
    const lane = onLeft ? leftLanes[left.indexOf(edge)] : rightLanes[right.indexOf(edge)];
    const side = onLeft ? x : x + nodeW;
    const laneX = onLeft ? side - LANE_GAP * (lane + 1) : side + LANE_GAP * (lane + 1);
    const targetNode = nodes[edge.to];
    const targetSide = onLeft ? targetNode.x : targetNode.x + targetNode.width;
    // Leave from the lower part of the source, arrive at the upper part of the target, so
    // that a jump out and a jump in on the same node do not overlap.
    const startY = fromY + NODE_H * 0.65;
    const endY = toY + targetNode.height * 0.35;
    const jump = {
      ...drawn,
      path: `M ${side} ${startY} L ${laneX} ${startY} L ${laneX} ${endY} L ${targetSide} ${endY}`,
    };
    out.push(jump);
    if (edge.label) wanted.push({ edge: jump, x: laneX, y: startY });
  }
  // Stack each side's labels top to bottom: a label goes at the height it wants, or one line
  // under the label above it, whichever is lower; so no two labels of a column overlap.
  let lowest = 0;
  for (const onLeft of [false, true]) {
    const column = wanted.filter((w) => (w.edge.kind === "error") === onLeft).sort((a, b) => a.y - b.y || a.x - b.x);
    let previous = Number.NEGATIVE_INFINITY;
    for (const { edge, x: fromX, y } of column) {
      const lineY = Math.max(y, previous + LABEL_LINE);
      previous = lineY;
      const labelX = onLeft ? leftColumn : rightColumn;
      edge.labelX = labelX;
      // The baseline sits 4 px under the line's middle, where the leader arrives.
      edge.labelY = lineY + 4;
      edge.leader = `M ${fromX} ${y} L ${onLeft ? labelX + 3 : labelX - 3} ${lineY}`;
      lowest = Math.max(lowest, lineY + 4);
    }
  }
  const width = x + nodeW + rightWidth + MARGIN;
  const height = Math.max(rowY(raises ? count + 1 : count) + NODE_H, lowest) + MARGIN;
  return { width, height, nodes, edges: out };
}
