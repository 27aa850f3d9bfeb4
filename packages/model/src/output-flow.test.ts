import { describe, expect, it } from "vitest";
import { decoded } from "../test/helpers.js";
import type { Definition, SwitchCase, Task } from "./definition.js";
import { outputFlow } from "./output-flow.js";
import { taskEdges } from "./reachability.js";

const def = decoded({
  name: "p",
  tasks: [
    { id: "a", action: { type: "fetch", url: "https://x" }, output: { v: 1 }, on_error: [{ goto: "$c" }] },
    { id: "b", output: { w: 1 }, switch: [{ case: "true", goto: "$a" }, { goto: "next" }] },
    { id: "c", output: { x: 1 } },
  ],
});

describe("outputFlow", () => {
  it("knows which outputs are set on entry to each task", () => {
    const flow = outputFlow(def);
    expect([...flow.setOnEntry[0]]).toEqual([]);
    expect([...flow.setOnEntry[1]]).toEqual([0]);
    expect([...flow.setOnEntry[2]], "c is reached from a's error edge, where a's output is not set").toEqual([]);
  });

  it("knows error targets and normal entries", () => {
    const flow = outputFlow(def);
    expect(flow.errorTarget).toEqual([false, false, true]);
    expect(flow.normalEntry).toEqual([true, true, true]);
  });

  it("intersects over every completion", () => {
    expect([...outputFlow(def).setAtCompletion]).toEqual([2]);
  });
});

/** The original set-per-task fixpoint, kept as the reference the dominator version must agree with. */
function referenceFlow(d: Definition): { entry: number[][]; completion: number[] } {
  const n = d.tasks.length;
  const edges = taskEdges(d);
  const all = () => new Set(d.tasks.map((_, i) => i));
  const entry: Array<Set<number>> = d.tasks.map((_, i) => (i === 0 ? new Set<number>() : all()));
  const intersect = (sets: Array<Set<number>>) => {
    if (sets.length === 0) return new Set<number>();
    const out = new Set(sets[0]);
    for (const s of sets.slice(1)) for (const x of out) if (!s.has(x)) out.delete(x);
    return out;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let b = 1; b < n; b++) {
      const incoming = edges.filter((e) => e.to === b);
      if (incoming.length === 0) continue;
      const next = intersect(
        incoming.map((e) => {
          const s = new Set(entry[e.from]);
          if (e.kind === "normal") s.add(e.from);
          return s;
        }),
      );
      if (next.size !== entry[b].size) {
        entry[b] = next;
        changed = true;
      }
    }
  }
  const completions: Array<Set<number>> = [];
  d.tasks.forEach((task, i) => {
    if (
      task.switch.length === 0
        ? i === n - 1
        : task.switch.some((c) => c.goto === "end" || (c.goto === "next" && i === n - 1))
    )
      completions.push(new Set([...entry[i], i]));
    if (task.on_error.some((r) => r.goto === "end")) completions.push(new Set(entry[i]));
  });
  const sorted = (s: Set<number>) => [...s].sort((a, b) => a - b);
  return { entry: entry.map(sorted), completion: sorted(intersect(completions)) };
}

describe("outputFlow on random routing graphs", () => {
  it("agrees with the set-per-task fixpoint (entry sets, completion set, has and iteration)", () => {
    let seed = 7;
    const random = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % k;
    };
    for (let round = 0; round < 400; round++) {
      const n = 1 + random(9);
      const goto = (): SwitchCase["goto"] => {
        const r = random(n + 2);
        return r === n ? "end" : r === n + 1 ? "next" : `$t${r}`;
      };
      const tasks: Task[] = Array.from({ length: n }, (_, i) => ({
        id: `t${i}`,
        switch: random(2) === 0 ? [] : Array.from({ length: 1 + random(3) }, () => ({ case: "true", goto: goto() })),
        on_error: Array.from({ length: random(3) }, () => {
          const r = random(n + 1);
          return { goto: r === n ? ("end" as const) : (`$t${r}` as const) };
        }),
      }));
      const d: Definition = { name: "p", tasks };
      const expected = referenceFlow(d);
      const flow = outputFlow(d);
      const label = JSON.stringify(tasks.map((t) => [t.switch.map((c) => c.goto), t.on_error.map((r) => r.goto)]));
      expect(
        flow.setOnEntry.map((s) => [...s]),
        label,
      ).toEqual(expected.entry);
      expect([...flow.setAtCompletion], label).toEqual(expected.completion);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) expect(flow.setOnEntry[i].has(j), label).toBe(expected.entry[i].includes(j));
    }
  });
});
