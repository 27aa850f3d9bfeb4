import type { Definition } from "./definition.js";
import { dominatorTree } from "./dominators.js";
import { taskEdges } from "./reachability.js";

/** Task indexes, answered on demand: `has` is O(1); iterating walks a dominator chain (ascending order). */
export interface TaskSet extends Iterable<number> {
  has(task: number): boolean;
}

/** What is known about `outputs` and `error` on entry to each task (by index). */
export interface OutputFlow {
  /** Tasks whose output is set on every path into task i (a must-analysis; an unreachable task has every output). */
  setOnEntry: readonly TaskSet[];
  /** Tasks whose output is set on every path to completion (for the process output). */
  setAtCompletion: TaskSet;
  /** Task i is the target of some on_error goto, so it may read `error`. */
  errorTarget: boolean[];
  /** Task i can also be entered normally (first task, fall-through, switch goto), where `error` is null. */
  normalEntry: boolean[];
  /** The tasks with an on_error goto to task i (what types `error.data` there). */
  errorSources: number[][];
}

/**
 * Forward must-analysis over the task graph: a normal edge a→b means a's output was just
 * set; an error edge means a failed on this visit, so only what was set before carries over.
 *
 * Solved as dominance, in O(E log V) (a set per task was O(V²)): in a graph with a node
 * "done a" for each task, normal edges a→b run a → done a → b and error edges a→b run
 * a → b, so "a's output is set on every path into b" is exactly "done a dominates b".
 * Completions (switch `end`, falling off the last task, on_error `end`) lead to one END node.
 */
export function outputFlow(def: Definition): OutputFlow {
  const n = def.tasks.length;
  const done = (i: number) => n + i;
  const END = 2 * n;
  const successors: number[][] = Array.from({ length: 2 * n + 1 }, () => []);
  const errorTarget = def.tasks.map(() => false);
  const normalEntry = def.tasks.map((_, i) => i === 0);
  const errorSources: number[][] = def.tasks.map(() => []);
  for (const e of taskEdges(def)) {
    if (e.kind === "normal") {
      successors[done(e.from)].push(e.to);
      normalEntry[e.to] = true;
    } else {
      successors[e.from].push(e.to);
      errorTarget[e.to] = true;
      const sources = errorSources[e.to];
      if (sources[sources.length - 1] !== e.from) sources.push(e.from);
    }
  }
  let completes = false;
  def.tasks.forEach((task, i) => {
    successors[i].push(done(i));
    if (
      task.switch.length === 0
        ? i === n - 1
        : task.switch.some((c) => c.goto === "end" || (c.goto === "next" && i === n - 1))
    ) {
      successors[done(i)].push(END);
      completes = true;
    }
    if (task.on_error.some((r) => r.goto === "end")) {
      successors[i].push(END);
      completes = true;
    }
  });
  const tree = dominatorTree(2 * n + 1, successors, 0);

  const everything: TaskSet = { has: () => true, [Symbol.iterator]: () => def.tasks.keys() };
  const doneDominating = (node: number): TaskSet => ({
    has: (j) => tree.dominates(done(j), node),
    [Symbol.iterator]() {
      const out: number[] = [];
      for (let v = tree.idom(node); v !== -1; v = tree.idom(v)) if (v >= n && v < END) out.push(v - n);
      return out.sort((a, b) => a - b)[Symbol.iterator]();
    },
  });
  // An unreachable task (reported separately) is typed as if every output were set, as is the
  // process output when no reachable path completes but some unreachable one does.
  const setOnEntry = def.tasks.map((_, i) => (tree.reachable(i) ? doneDominating(i) : everything));
  const nothing: TaskSet = { has: () => false, [Symbol.iterator]: () => [][Symbol.iterator]() };
  const setAtCompletion = !completes ? nothing : tree.reachable(END) ? doneDominating(END) : everything;
  return { setOnEntry, setAtCompletion, errorTarget, normalEntry, errorSources };
}
