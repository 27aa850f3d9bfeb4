import { describe, expect, it } from "vitest";
import { END_NODE, LABEL_CHAR_W, LABEL_LINE, layoutTaskGraph, MAX_LABEL, RAISE_NODE } from "./task-graph.js";

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

  describe("labels", () => {
    // Four switch cases leaving one task, two on_error rules with long codes, a straight labelled case.
    const busy = {
      tasks: [
        {
          id: "route",
          switch: [
            { case: "outputs.check.amount > 10000 && outputs.check.currency == 'EUR'", goto: "$big" },
            { case: "outputs.check.amount > 100", goto: "$medium" },
            { case: "outputs.check.flagged", raise: { code: "fraud.suspected" } },
            { case: "outputs.check.region == 'us'", goto: "next" },
            { goto: "$small" },
          ],
          on_error: [
            { code: ["http.503", "http.504", "http.502"], goto: "$small" },
            { code: ["pre.error"], goto: "$medium" },
          ],
        },
        { id: "us", on_error: [{ goto: "$big" }] },
        { id: "big", switch: "end" },
        { id: "medium", switch: "end" },
        { id: "small" },
      ],
    };
    /** Each label's box in drawing units, from its anchor, baseline and the monospace width. */
    const boxes = (graph: ReturnType<typeof layoutTaskGraph>) =>
      graph.edges
        .filter((e) => e.label)
        .map((e) => {
          const width = e.text.length * LABEL_CHAR_W;
          const left = e.anchor === "start" ? e.labelX : e.labelX - width;
          return { name: `${e.from}→${e.to}`, left, right: left + width, top: e.labelY - 11, bottom: e.labelY + 3 };
        });

    it("stacks the labels of one side so that no two overlap", () => {
      const found = boxes(layoutTaskGraph(busy));
      expect(found.length).toBe(8);
      for (const a of found)
        for (const b of found) {
          if (a === b) continue;
          const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
          expect(apart, `${a.name} and ${b.name} overlap`).toBe(true);
        }
      const rightYs = layoutTaskGraph(busy)
        .edges.filter((e) => e.label && e.kind !== "error")
        .map((e) => e.labelY)
        .sort((a, b) => a - b);
      for (let i = 1; i < rightYs.length; i++) expect(rightYs[i] - rightYs[i - 1]).toBeGreaterThanOrEqual(LABEL_LINE);
    });

    it("keeps every label whole inside the drawing, left ones included, and clear of the nodes", () => {
      const graph = layoutTaskGraph(busy);
      const nodes = graph.nodes;
      for (const box of boxes(graph)) {
        expect(box.left, `${box.name} starts inside`).toBeGreaterThanOrEqual(0);
        expect(box.right, `${box.name} ends inside`).toBeLessThanOrEqual(graph.width);
        expect(box.bottom, `${box.name} is above the bottom`).toBeLessThanOrEqual(graph.height);
        for (const node of nodes) {
          const apart = box.right <= node.x || node.x + node.width <= box.left;
          expect(apart, `${box.name} clear of ${node.id}`).toBe(true);
        }
      }
    });

    it("draws on_error labels on the left, the others on the right, each with a leader from its edge", () => {
      const graph = layoutTaskGraph(busy);
      const taskX = graph.nodes[0].x;
      for (const e of graph.edges.filter((e) => e.label)) {
        if (e.kind === "error") expect([e.anchor, e.labelX < taskX]).toEqual(["end", true]);
        else expect([e.anchor, e.labelX > taskX + graph.nodes[0].width]).toEqual(["start", true]);
        expect(e.leader).toMatch(/^M [\d.]+ [\d.]+ L [\d.]+ [\d.]+$/);
      }
      expect(graph.edges.filter((e) => !e.label).every((e) => e.leader === "")).toBe(true);
    });

    it("shortens a label past MAX_LABEL characters in the drawing and keeps it whole in the edge", () => {
      const [big] = edge(layoutTaskGraph(busy), "route", "big");
      expect(big.label).toBe("outputs.check.amount > 10000 && outputs.check.currency == 'EUR'");
      expect(big.text).toHaveLength(MAX_LABEL);
      expect(big.text.endsWith("…")).toBe(true);
      expect(edge(layoutTaskGraph(busy), "route", "medium").map((e) => [e.kind, e.text])).toEqual([
        ["switch", "outputs.check.amount > 100"],
        ["error", "pre.error"],
      ]);
    });
  });
});
