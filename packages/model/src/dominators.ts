// Dominator trees (Lengauer–Tarjan, the simple version with path compression: O(E log V)).
// Used by the output-flow must-analysis, so that its cost grows as E log V with the task count,
// never quadratically (docs/limits.md "Checking cost").

/** A dominator tree: `dominates(a, b)` in O(1), and the chain of dominators of a node. */
export interface DominatorTree {
  /** Whether the root reaches `v`. */
  reachable(v: number): boolean;
  /** Whether every path from the root to `b` passes through `a` (a node dominates itself). False if either is unreachable. */
  dominates(a: number, b: number): boolean;
  /** The immediate dominator of `v`, or -1 for the root and unreachable nodes. */
  idom(v: number): number;
}

/** Dominators of a graph of `count` nodes given as successor lists, from `root`. Iterative: no recursion depth limit. */
export function dominatorTree(count: number, successors: readonly (readonly number[])[], root: number): DominatorTree {
  // Depth-first numbering from the root.
  const dfn = new Int32Array(count).fill(-1);
  const vertex: number[] = [];
  const parent = new Int32Array(count).fill(-1);
  const stack = [root];
  const next = [0];
  dfn[root] = 0;
  vertex.push(root);
  while (stack.length > 0) {
    const v = stack[stack.length - 1];
    const out = successors[v];
    const i = next[next.length - 1]++;
    if (i >= out.length) {
      stack.pop();
      next.pop();
      continue;
    }
    const w = out[i];
    if (dfn[w] !== -1) continue;
    dfn[w] = vertex.length;
    vertex.push(w);
    parent[w] = v;
    stack.push(w);
    next.push(0);
  }
  const predecessors: number[][] = Array.from({ length: count }, () => []);
  for (const v of vertex) for (const w of successors[v]) predecessors[w].push(v);

  const semi = Int32Array.from(dfn);
  const ancestor = new Int32Array(count).fill(-1);
  const label = Int32Array.from({ length: count }, (_, i) => i);
  const idom = new Int32Array(count).fill(-1);
  const bucket: number[][] = Array.from({ length: count }, () => []);
  const path: number[] = [];
  const evaluate = (v: number): number => {
    if (ancestor[v] === -1) return v;
    // Path compression, iteratively: the nodes nearest the forest root are updated first.
    let x = v;
    while (ancestor[ancestor[x]] !== -1) {
      path.push(x);
      x = ancestor[x];
    }
    while (path.length > 0) {
      const y = path.pop()!;
      const a = ancestor[y];
      if (semi[label[a]] < semi[label[y]]) label[y] = label[a];
      ancestor[y] = ancestor[a];
    }
    return label[v];
  };
  for (let k = vertex.length - 1; k > 0; k--) {
    const w = vertex[k];
    for (const v of predecessors[w]) {
      const u = evaluate(v);
      if (semi[u] < semi[w]) semi[w] = semi[u];
    }
    bucket[vertex[semi[w]]].push(w);
    const p = parent[w];
    ancestor[w] = p;
    for (const v of bucket[p]) {
      const u = evaluate(v);
      idom[v] = semi[u] < semi[v] ? u : p;
    }
    bucket[p].length = 0;
  }
  for (let k = 1; k < vertex.length; k++) {
    const w = vertex[k];
    if (idom[w] !== vertex[semi[w]]) idom[w] = idom[idom[w]];
  }

  // Pre/post order of the tree: a dominates b iff b's interval lies inside a's.
  const children: number[][] = Array.from({ length: count }, () => []);
  for (let k = 1; k < vertex.length; k++) children[idom[vertex[k]]].push(vertex[k]);
  const pre = new Int32Array(count).fill(-1);
  const post = new Int32Array(count).fill(-1);
  let clock = 0;
  const walk = [root];
  const childAt = [0];
  pre[root] = clock++;
  while (walk.length > 0) {
    const v = walk[walk.length - 1];
    const i = childAt[childAt.length - 1]++;
    if (i < children[v].length) {
      const c = children[v][i];
      pre[c] = clock++;
      walk.push(c);
      childAt.push(0);
    } else {
      post[v] = clock++;
      walk.pop();
      childAt.pop();
    }
  }
  return {
    reachable: (v) => dfn[v] !== -1,
    dominates: (a, b) => dfn[a] !== -1 && dfn[b] !== -1 && pre[a] <= pre[b] && post[b] <= post[a],
    idom: (v) => idom[v],
  };
}
