import { describe, expect, it } from "vitest";
import { END_NODE, layoutTaskGraph, RAISE_NODE } from "./task-graph.js";

const definition = {
  name: "order",
  tasks: [
    {
      id: "charge",
      action: { type: "fetch", url: "https://x", method: "post" },
      switch: [],
      on_error: [{ code: ["http.5%"], retry: { retries: 3 } }, { goto: "$refund" }],
    },
    {
      id: "check",
      switch: [{ case: "outputs.charge.ok", goto: "$ship" }, { raise: { code: "declined", message: "no" } }],
      on_error: [],
    },
    { id: "refund", switch: [{ goto: "end" }], on_error: [] },
    { id: "ship", action: { type: "external" }, switch: [], on_error: [] },
  ],
};

const edge = (graph: ReturnType<typeof layoutTaskGraph>, from: string, to: string) =>
  graph.edges.filter((e) => e.from === from && e.to === to);

describe("layoutTaskGraph", () => {
  it("places tasks top to bottom in definition order, then the end node", () => {
    const graph = layoutTaskGraph(definition);
    expect(graph.nodes.map((n) => n.id)).toEqual(["charge", "check", "refund", "ship", END_NODE, RAISE_NODE]);
    const ys = graph.nodes.map((n) => n.y);
    expect(
      [...ys].sort((a, b) => a - b),
      "rows follow the task order",
    ).toEqual(ys);
    expect(graph.nodes.at(-1)?.terminal).toBe(true);
  });

  it("draws the fall-through of an empty switch as a straight next edge", () => {
    const graph = layoutTaskGraph(definition);
    const [next] = edge(graph, "charge", "check");
    expect(next.kind).toBe("next");
    expect(next.path).toMatch(/^M (\d+) \d+ L \1 \d+$/);
    expect(edge(graph, "ship", END_NODE)[0]?.kind, "the last task falls through to the end").toBe("next");
  });

  it("routes switch cases by their goto and labels them with the case expression", () => {
    const graph = layoutTaskGraph(definition);
    expect(edge(graph, "check", "ship")[0]).toMatchObject({ kind: "switch", label: "outputs.charge.ok" });
    expect(edge(graph, "check", RAISE_NODE)[0]).toMatchObject({ kind: "switch", label: "default → raise declined" });
    expect(edge(graph, "check", END_NODE), "a raise is not drawn into the success end").toEqual([]);
    expect(edge(graph, "check", "refund"), "a switch without a default case has no implicit fall-through").toEqual([]);
  });

  it("draws on_error gotos on the left and shows the retry budget on the node", () => {
    const graph = layoutTaskGraph(definition);
    const [error] = edge(graph, "charge", "refund");
    expect(error).toMatchObject({ kind: "error", label: "any error" });
    const charge = graph.nodes[0];
    const laneX = Number(error.path.split(" ")[4]);
    expect(laneX, "error edges run left of the nodes").toBeLessThan(charge.x);
    expect(charge.detail).toBe("fetch POST · retry ×3");
    expect(graph.nodes[3].detail).toBe("external");
    expect(graph.nodes[1].detail).toBe("route");
  });

  it("gives overlapping jumps on the same side different lanes", () => {
    const def = {
      tasks: [
        { id: "a", switch: [{ case: "x", goto: "$d" }, { goto: "next" }] },
        { id: "b", switch: [{ case: "y", goto: "$d" }, { goto: "next" }] },
        { id: "c" },
        { id: "d" },
      ],
    };
    const graph = layoutTaskGraph(def);
    const lanes = [edge(graph, "a", "d")[0], edge(graph, "b", "d")[0]].map((e) => Number(e.path.split(" ")[4]));
    expect(lanes[0]).not.toBe(lanes[1]);
    expect(lanes[1], "the shorter jump takes the inner lane").toBeLessThan(lanes[0]);
  });

  it("merges branches that lead to the same place into one labelled edge", () => {
    const def = {
      tasks: [
        { id: "a", switch: [{ case: "p", goto: "$c" }, { case: "q", goto: "$c" }, { goto: "next" }] },
        { id: "b" },
        { id: "c" },
      ],
    };
    const jumps = edge(layoutTaskGraph(def), "a", "c");
    expect(jumps).toHaveLength(1);
    expect(jumps[0].label).toBe("p; q");
  });

  it("accepts the shorthand switch forms and loops back", () => {
    const def = {
      tasks: [
        { id: "a", switch: "next" },
        { id: "b", switch: "$a" },
      ],
    };
    const graph = layoutTaskGraph(def);
    expect(edge(graph, "a", "b")[0].kind).toBe("next");
    expect(edge(graph, "b", "a")[0].kind).toBe("switch");
  });

  it("marks the current task only", () => {
    const graph = layoutTaskGraph(definition, "refund");
    expect(graph.nodes.filter((n) => n.current).map((n) => n.id)).toEqual(["refund"]);
  });

  it("keeps every node and edge inside the drawing", () => {
    const graph = layoutTaskGraph(definition);
    for (const node of graph.nodes) {
      expect(node.x).toBeGreaterThanOrEqual(0);
      expect(node.x + node.width).toBeLessThanOrEqual(graph.width);
      expect(node.y + node.height).toBeLessThanOrEqual(graph.height);
    }
    for (const e of graph.edges) {
      const xs = e.path
        .split(" ")
        .filter((_, i) => i % 3 === 1)
        .map(Number);
      for (const x of xs) expect(x, `${e.from}→${e.to}`).toBeGreaterThanOrEqual(0);
      for (const x of xs) expect(x, `${e.from}→${e.to}`).toBeLessThanOrEqual(graph.width);
    }
  });

  it("draws nothing but the end node for a definition without tasks", () => {
    expect(layoutTaskGraph({}).nodes.map((n) => n.id)).toEqual([END_NODE]);
  });
});
