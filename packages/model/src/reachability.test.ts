import { describe, expect, it } from "vitest";
import { decoded } from "../test/helpers.js";
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
