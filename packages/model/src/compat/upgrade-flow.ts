import type { Definition } from "../definition.js";
import { taskEdges } from "../reachability.js";
import type { CompatBudget } from "./budget.js";

// The task graph as the upgrade member walks it (upgrade-check.ts): where an instance may sit
// after a task, which outputs are set on entry to a task, whether two versions share one flow.

/** Tasks reachable from task x in one step or more: where an instance may sit once x ran, its output stored. */
export function mayRunAfter(successors: number[][], x: number, budget: CompatBudget): Set<number> {
  const seen = new Set<number>();
  const stack = [x];
  while (stack.length > 0) {
    const next = successors[stack.pop() as number];
    budget.spend(next.length + 1);
    for (const to of next)
      if (!seen.has(to)) {
        seen.add(to);
        stack.push(to);
      }
  }
  return seen;
}

/** Must-set outputs on entry to each task reachable from `start` (undefined where unreachable). */
export function replay(
  n: number,
  edges: ReturnType<typeof taskEdges>,
  start: number,
  initial: Set<number>,
  budget: CompatBudget,
): Array<Set<number> | undefined> {
  const entry: Array<Set<number> | undefined> = new Array(n).fill(undefined);
  entry[start] = new Set(initial);
  const into: Array<typeof edges> = Array.from({ length: n }, () => []);
  for (const e of edges) into[e.to].push(e);
  for (let changed = true, rounds = 0; changed && rounds < n * n + 2; rounds++) {
    changed = false;
    budget.spend(n);
    for (let b = 0; b < n; b++) {
      const incoming = into[b].filter((e) => entry[e.from] !== undefined);
      if (incoming.length === 0) continue;
      const sets = incoming.map((e) => {
        budget.spend(entry[e.from]!.size + 1);
        const s = new Set(entry[e.from]);
        if (e.kind === "normal") s.add(e.from);
        return s;
      });
      if (b === start) sets.push(new Set(initial));
      const next = new Set(sets[0]);
      for (const s of sets.slice(1)) for (const x of next) if (!s.has(x)) next.delete(x);
      const cur = entry[b];
      if (cur === undefined || cur.size !== next.size || [...next].some((x) => !cur.has(x))) {
        entry[b] = next;
        changed = true;
      }
    }
  }
  return entry;
}

/** Whether `from` and `to` have the same task ids in the same order and the same edges. */
export function sameFlow(from: Definition, to: Definition, toEdges: ReturnType<typeof taskEdges>): boolean {
  if (from.tasks.length !== to.tasks.length || from.tasks.some((task, i) => task.id !== to.tasks[i].id)) return false;
  const fromEdges = taskEdges(from);
  return (
    fromEdges.length === toEdges.length &&
    fromEdges.every((e, i) => e.from === toEdges[i].from && e.to === toEdges[i].to && e.kind === toEdges[i].kind)
  );
}

/** The task ids `text` reads as `outputs.<id>` or `outputs['<id>']`, in one scan (task ids: names.ts TASK_ID). */
export function readIds(text: string): Set<string> {
  const ids = new Set<string>();
  for (const m of text.matchAll(/outputs(?:\.([A-Za-z_][A-Za-z0-9_-]*)|\[\s*['"]([^'"]*)['"]\s*\])/g))
    ids.add(m[1] ?? m[2]!);
  return ids;
}

/** `reachable[i]`: a path from the first task leads to task i. */
export function reachableFromFirst(n: number, edges: ReturnType<typeof taskEdges>): boolean[] {
  const successors: number[][] = Array.from({ length: n }, () => []);
  for (const e of edges) successors[e.from].push(e.to);
  const reachable = new Array<boolean>(n).fill(false);
  const stack = n > 0 ? [0] : [];
  if (n > 0) reachable[0] = true;
  while (stack.length > 0)
    for (const to of successors[stack.pop() as number])
      if (!reachable[to]) {
        reachable[to] = true;
        stack.push(to);
      }
  return reachable;
}
