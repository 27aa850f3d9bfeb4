import { describe, expect, it } from "vitest";
import { decoded } from "../test/helpers.js";
import { decodeDefinition } from "./decode/decode-definition.js";
import type { Definition } from "./definition.js";
import { endlessRoutingCycles, taskEdges } from "./reachability.js";

const def = decoded({
  name: "p",
  tasks: [
    { id: "a", action: { type: "fetch", url: "https://x" }, output: { v: 1 }, on_error: [{ goto: "$c" }] },
    { id: "b", output: { w: 1 }, switch: [{ case: "true", goto: "$a" }, { goto: "next" }] },
    { id: "c", output: { x: 1 } },
  ],
});

describe("taskEdges", () => {
  it("lists fall-through and switch gotos as normal, on_error gotos as error edges", () => {
    expect(taskEdges(def)).toEqual([
      { from: 0, to: 1, kind: "normal" },
      { from: 0, to: 2, kind: "error" },
      { from: 1, to: 0, kind: "normal" },
      { from: 1, to: 2, kind: "normal" },
    ]);
  });
});

describe("endlessRoutingCycles", () => {
  it("finds unconditional cycles of routing-only tasks", () => {
    const d: Definition = {
      name: "p",
      tasks: [
        { id: "a", switch: [], on_error: [] },
        { id: "b", switch: [{ goto: "$a" }], on_error: [] },
      ],
    };
    expect(endlessRoutingCycles(d)).toEqual([[0, 1]]);
    const r = decodeDefinition({ name: "p", tasks: [{ id: "a" }, { id: "b", switch: "$a" }] });
    expect(r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'tasks[0]: tasks "a" → "b" → "a" loop forever: none has an action and every step is unconditional',
    ]);
  });

  it("ignores cycles through an action or a condition", () => {
    const viaAction = decoded({
      name: "p",
      tasks: [
        { id: "a", action: { type: "delay", for: "1s" } },
        { id: "b", switch: "$a" },
      ],
    });
    expect(endlessRoutingCycles(viaAction)).toEqual([]);
    const conditional = decoded({
      name: "p",
      tasks: [
        {
          id: "a",
          output: { n: "$: (self.previous.n ?? 0) + 1" },
          switch: [{ case: "self.output.n < 3", goto: "$a" }, { goto: "end" }],
        },
      ],
    });
    expect(endlessRoutingCycles(conditional)).toEqual([]);
  });
});
