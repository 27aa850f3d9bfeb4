import type { Definition, Task } from "./definition.js";

export type EdgeKind = "normal" | "error";

export interface Edge {
  from: number;
  to: number;
  kind: EdgeKind;
}

/** Transitions between tasks: fall-through and switch gotos are normal edges, on_error gotos are error edges. */
export function taskEdges(def: Definition): Edge[] {
  const index = new Map(def.tasks.map((t, i) => [t.id, i]));
  const edges: Edge[] = [];
  def.tasks.forEach((task, i) => {
    const target = (goto: string | undefined): number | undefined => {
      if (goto === undefined || goto === "end") return undefined;
      if (goto === "next") return i + 1 < def.tasks.length ? i + 1 : undefined;
      return index.get(goto.slice(1));
    };
    if (task.switch.length === 0 && i + 1 < def.tasks.length) edges.push({ from: i, to: i + 1, kind: "normal" });
    for (const c of task.switch) {
      const to = target(c.goto);
      if (to !== undefined) edges.push({ from: i, to, kind: "normal" });
    }
    for (const r of task.on_error) {
      const to = target(r.goto);
      if (to !== undefined) edges.push({ from: i, to, kind: "error" });
    }
  });
  return edges;
}

/** Tasks that no path from tasks[0] reaches. */
export function unreachableTasks(def: Definition): Task[] {
  const successors: number[][] = def.tasks.map(() => []);
  for (const e of taskEdges(def)) successors[e.from].push(e.to);
  const seen = new Set<number>([0]);
  const stack = [0];
  while (stack.length > 0) {
    for (const to of successors[stack.pop()!])
      if (!seen.has(to)) {
        seen.add(to);
        stack.push(to);
      }
  }
  return def.tasks.filter((_, i) => !seen.has(i));
}

/**
 * Routing-only tasks joined by unconditional transitions (fall-through, or a switch whose only
 * case is a default goto) that form a cycle: such an instance would spin forever without ever
 * running an action. Returns each cycle once, as task indexes in visiting order.
 */
export function endlessRoutingCycles(def: Definition): number[][] {
  const index = new Map(def.tasks.map((t, i) => [t.id, i]));
  const next = def.tasks.map((task, i): number | undefined => {
    if (task.action !== undefined) return undefined;
    if (task.switch.length === 0) return i + 1 < def.tasks.length ? i + 1 : undefined;
    const only = task.switch[0];
    if (task.switch.length !== 1 || only.case !== undefined || only.goto === undefined || only.goto === "end")
      return undefined;
    if (only.goto === "next") return i + 1 < def.tasks.length ? i + 1 : undefined;
    return index.get(only.goto.slice(1));
  });
  const cycles: number[][] = [];
  const done = new Set<number>();
  for (let start = 0; start < def.tasks.length; start++) {
    const path: number[] = [];
    const onPath = new Map<number, number>();
    let at: number | undefined = start;
    while (at !== undefined && !done.has(at) && !onPath.has(at)) {
      onPath.set(at, path.length);
      path.push(at);
      at = next[at];
    }
    if (at !== undefined && !done.has(at) && onPath.has(at)) cycles.push(path.slice(onPath.get(at)));
    for (const i of path) done.add(i);
  }
  return cycles;
}
