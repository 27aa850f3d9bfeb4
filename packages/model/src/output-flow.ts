import type { Definition } from "./definition.js";
import { taskEdges } from "./reachability.js";

/** What is known about `outputs` and `error` on entry to each task (by index). */
export interface OutputFlow {
  /** Tasks whose output is set on every path into task i (a must-analysis; loops reach a fixpoint). */
  setOnEntry: Array<Set<number>>;
  /** Tasks whose output is set on every path to completion (for the process output). */
  setAtCompletion: Set<number>;
  /** Task i is the target of some on_error goto, so it may read `error`. */
  errorTarget: boolean[];
  /** Task i can also be entered normally (first task, fall-through, switch goto), where `error` is null. */
  normalEntry: boolean[];
}

/**
 * Forward must-analysis over the task graph: a normal edge a→b means a's output was just
 * set; an error edge means a failed on this visit, so only what was set before carries over.
 */
export function outputFlow(def: Definition): OutputFlow {
  const n = def.tasks.length;
  const edges = taskEdges(def);
  const all = () => new Set(def.tasks.map((_, i) => i));
  const setOnEntry: Array<Set<number>> = def.tasks.map((_, i) => (i === 0 ? new Set<number>() : all()));
  const after = (e: { from: number; kind: string }) => {
    const s = new Set(setOnEntry[e.from]);
    if (e.kind === "normal") s.add(e.from);
    return s;
  };
  const incomingOf = def.tasks.map((_, b) => edges.filter((e) => e.to === b));
  for (let changed = true, rounds = 0; changed && rounds < n * n + 2; rounds++) {
    changed = false;
    for (let b = 1; b < n; b++) {
      const incoming = incomingOf[b];
      if (incoming.length === 0) continue;
      const next = intersectAll(incoming.map(after));
      if (next.size !== setOnEntry[b].size) {
        setOnEntry[b] = next;
        changed = true;
      }
    }
  }
  // Completion: a switch goto "end", falling off the last task, or an on_error goto "end".
  const completions: Array<Set<number>> = [];
  def.tasks.forEach((task, i) => {
    const done = new Set([...setOnEntry[i], i]);
    if (
      task.switch.length === 0
        ? i === n - 1
        : task.switch.some((c) => c.goto === "end" || (c.goto === "next" && i === n - 1))
    )
      completions.push(done);
    if (task.on_error.some((r) => r.goto === "end")) completions.push(new Set(setOnEntry[i]));
  });
  const setAtCompletion = intersectAll(completions);
  const errorTarget = def.tasks.map((_, i) => edges.some((e) => e.to === i && e.kind === "error"));
  const normalEntry = def.tasks.map((_, i) => i === 0 || edges.some((e) => e.to === i && e.kind === "normal"));
  return { setOnEntry, setAtCompletion, errorTarget, normalEntry };
}

function intersectAll(sets: Array<Set<number>>): Set<number> {
  if (sets.length === 0) return new Set();
  const out = new Set(sets[0]);
  for (const s of sets.slice(1)) for (const x of out) if (!s.has(x)) out.delete(x);
  return out;
}
