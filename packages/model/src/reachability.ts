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
  const edges = taskEdges(def);
  const seen = new Set<number>([0]);
  const stack = [0];
  while (stack.length > 0) {
    const from = stack.pop()!;
    for (const e of edges)
      if (e.from === from && !seen.has(e.to)) {
        seen.add(e.to);
        stack.push(e.to);
      }
  }
  return def.tasks.filter((_, i) => !seen.has(i));
}
