import { describe, expect, it } from "vitest";
import { decoded } from "../test/helpers.js";
import { outputFlow } from "./output-flow.js";

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
