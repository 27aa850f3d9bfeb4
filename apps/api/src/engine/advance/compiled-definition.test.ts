// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation
import type { Definition } from "@baton/model";
import { describe, expect, it } from "vitest";
import {
  compileDefinition,
  compileDefinitionInSlices,
  DefinitionFault,
  TASKS_PER_SLICE,
} from "./compiled-definition.js";

/** n fetch tasks with templates, shapes, a switch and a `$:` timeout: every part compileTask compiles. */
function chain(n: number, broken: Record<number, string> = {}): Definition {
  return {
    name: "big",
    tasks: Array.from({ length: n }, (_, i) => ({
      id: `t${i}`,
      action: {
        type: "fetch",
        url: `https://svc.example.com/${i}?prev=\${outputs.t${Math.max(0, i - 1)}.n ?? 0}`,
        body: { i, prev: i > 0 ? `$: outputs.t${i - 1}` : null },
        timeout: { for: "$: '5s'" },
      },
      output: { n: broken[i] ?? (i > 0 ? `$: outputs.t${i - 1}.n + 1` : 0) },
      switch: [{ case: `outputs.t${i}.n > ${n}`, goto: "end" }, {}],
    })),
    output: { last: `$: outputs.t${n - 1}.n` },
  } as unknown as Definition;
}

/** Counts event-loop turns (setImmediate callbacks), from before `work` starts until it settles. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ turns: number; settled: PromiseSettledResult<T> }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const [settled] = await Promise.allSettled([work()]);
  done = true;
  return { turns, settled };
}

describe("compileDefinitionInSlices", () => {
  it("compiles the same definition as compileDefinition", async () => {
    const def = chain(TASKS_PER_SLICE * 2 + 7);
    const sliced = await compileDefinitionInSlices(def, 3);
    expect(sliced).toEqual(compileDefinition(def, 3));
    expect(sliced.tasks).toHaveLength(TASKS_PER_SLICE * 2 + 7);
    expect(sliced.byId.get(`t${TASKS_PER_SLICE + 3}`)?.index).toBe(TASKS_PER_SLICE + 3);
  });

  it("lets the event loop turn between slices while compiling the largest definition allowed", async () => {
    const { turns, settled } = await turnsDuring(() => compileDefinitionInSlices(chain(10_000), 1));
    expect(settled.status).toBe("fulfilled");
    // One yield after every slice but the last: other callbacks (requests, /healthz) run in each.
    expect(turns).toBeGreaterThanOrEqual(10_000 / TASKS_PER_SLICE - 1);
  });

  it("rejects with the first fault in task order, the same one compileDefinition throws", async () => {
    const def = chain(1_000, { 450: "${outputs.t449.n", 900: "$: )" });
    let whole: unknown;
    try {
      compileDefinition(def, 1);
    } catch (error) {
      whole = error;
    }
    expect(whole).toBeInstanceOf(DefinitionFault);
    expect((whole as Error).message).toMatch(/^tasks\[450\] \("t450"\)\.output/);
    await expect(compileDefinitionInSlices(def, 1)).rejects.toThrow(whole as Error);
    await expect(compileDefinitionInSlices(def, 1)).rejects.toBeInstanceOf(DefinitionFault);
  });

  it("rejects on the process output after every task compiled", async () => {
    const def = { ...chain(TASKS_PER_SLICE + 1), output: { last: "$: (" } } as Definition;
    await expect(compileDefinitionInSlices(def, 1)).rejects.toThrow(/^output: output\.last: /);
  });
});
