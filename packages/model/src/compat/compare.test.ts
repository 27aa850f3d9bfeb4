import { describe, expect, it } from "vitest";
import { decoded } from "../../test/helpers.js";
import { blockersOn, compareDefinitions, upgradeBlockers, upgradeGates } from "./compare.js";
import { excuseMembers, onlyOnOneSide } from "./report.js";

const URL = "https://pay.example.com/charge";
const order = (
  over: {
    input?: unknown;
    charge?: Record<string, unknown>;
    ship?: Record<string, unknown>;
    tasks?: unknown[];
    output?: unknown;
  } = {},
) =>
  decoded({
    name: "order",
    input_schema: over.input ?? {
      type: "object",
      properties: { order_id: { type: "string" } },
      required: ["order_id"],
    },
    tasks: over.tasks ?? [
      {
        id: "charge",
        action: {
          type: "fetch",
          url: URL,
          result_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
        },
        ...over.charge,
      },
      { id: "ship", action: { type: "external", input: { charge: "$: outputs.charge.id" } }, ...over.ship },
    ],
    output: over.output ?? { charge: "$: outputs.charge.id" },
  });

describe("compareDefinitions", () => {
  it("finds two identical versions compatible with nothing changed", () => {
    const r = compareDefinitions(order(), order(), 1, 2);
    expect(r).toEqual({
      name: "order",
      status: "compared",
      from: 1,
      to: 2,
      upgrade: { compatible: true },
      contract: { compatible: true },
      changed: [],
      issues: [],
    });
  });

  it("gates upgrade when a task an instance may sit on is gone", () => {
    const to = order({
      tasks: [
        {
          id: "charge",
          action: {
            type: "fetch",
            url: URL,
            result_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
          },
        },
      ],
    });
    const r = compareDefinitions(order(), to, 1, 2);
    expect(r.upgrade.compatible).toBe(false);
    expect(r.issues).toContainEqual(
      expect.objectContaining({ member: "upgrade", address: "tasks.ship", gating: true }),
    );
    expect(r.changed).toContainEqual({ address: "tasks.ship", task: "ship" });
  });

  it("gates upgrade when the new version reads a field the old one never stored", () => {
    const from = order();
    const to = order({
      charge: {
        action: {
          type: "fetch",
          url: URL,
          result_schema: {
            type: "object",
            properties: { id: { type: "string" }, amount: { type: "number" } },
            required: ["id", "amount"],
          },
        },
      },
      ship: {
        action: { type: "external", input: { charge: "$: outputs.charge.id", amount: "$: outputs.charge.amount" } },
      },
    });
    const r = compareDefinitions(from, to, 3, 4);
    const issue = r.issues.find((i) => i.address === "tasks.charge.output");
    expect(issue, JSON.stringify(r.issues)).toMatchObject({
      member: "upgrade",
      path: "/properties/amount",
      gating: true,
    });
    expect(issue?.message).toContain('version 4 requires "amount", which version 3 never declares');
    expect(r.upgrade.compatible).toBe(false);
    expect(
      upgradeBlockers(from, to, 3, 4, ["ship"]).map((b) => b.task),
      "ship runs after charge stored its output",
    ).toEqual(["ship"]);
    expect(
      upgradeBlockers(from, to, 3, 4, ["charge"]),
      "an instance still on charge will store the new result",
    ).toEqual([]);
  });

  it("gates upgrade when a new earlier task is assumed set but was never run", () => {
    const from = decoded({
      name: "p",
      tasks: [
        { id: "a", action: { type: "external" } },
        { id: "c", action: { type: "external" } },
      ],
    });
    const to = decoded({
      name: "p",
      tasks: [
        { id: "a", action: { type: "external" } },
        { id: "b", output: { n: 1 } },
        { id: "c", action: { type: "external", input: { n: "$: outputs.b.n" } } },
      ],
    });
    const r = compareDefinitions(from, to, 1, 2);
    expect(r.issues).toContainEqual(expect.objectContaining({ member: "upgrade", address: "tasks.c", gating: true }));
    expect(upgradeBlockers(from, to, 1, 2, ["a"]), "from a, the instance passes through the new task b").toEqual([]);
    expect(upgradeBlockers(from, to, 1, 2, ["c"])).toHaveLength(1);
  });

  it("gates upgrade when a parked task changes kind or its children change process", () => {
    const from = decoded({
      name: "p",
      tasks: [
        { id: "wait", action: { type: "external" } },
        { id: "kids", action: { type: "child", name: "q" } },
      ],
    });
    const to = decoded(
      {
        name: "p",
        tasks: [
          { id: "wait", action: { type: "fetch", url: URL } },
          { id: "kids", action: { type: "child", name: "r" } },
        ],
      },
      { processExists: () => true },
    );
    const r = compareDefinitions(from, to, 1, 2);
    expect(r.issues.filter((i) => i.gating).map((i) => `${i.address}${i.path}`)).toEqual([
      "tasks.wait.action/type",
      "tasks.kids.action/name",
    ]);
  });

  it("lets a fetch task become another fetch without an upgrade issue", () => {
    const r = compareDefinitions(
      order(),
      order({
        charge: {
          action: {
            type: "fetch",
            url: `${URL}/v2`,
            result_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
          },
        },
      }),
      1,
      2,
    );
    expect(r.upgrade.compatible).toBe(true);
    expect(r.changed).toEqual([{ address: "tasks.charge", task: "charge" }]);
  });

  it("breaks the contract when the input gains a required field or narrows a type", () => {
    const to = order({
      input: {
        type: "object",
        properties: { order_id: { type: "string" }, region: { type: "string" } },
        required: ["order_id", "region"],
      },
    });
    const r = compareDefinitions(order(), to, 1, 2);
    expect(r.contract.compatible).toBe(false);
    expect(r.issues).toContainEqual(
      expect.objectContaining({
        member: "contract",
        address: "input_schema",
        path: "/properties/region",
        gating: true,
      }),
    );
    expect(r.upgrade.compatible, "a stored input lacks region too").toBe(false);
    expect(r.changed).toContainEqual({ address: "input_schema", task: null });
    const narrowed = order({
      input: { type: "object", properties: { order_id: { type: "string", maxLength: 8 } }, required: ["order_id"] },
    });
    expect(compareDefinitions(order(), narrowed, 1, 2).issues).toContainEqual(
      expect.objectContaining({ member: "contract", path: "/properties/order_id/maxLength" }),
    );
  });

  it("keeps the contract when the input only gains an optional field", () => {
    const to = order({
      input: {
        type: "object",
        properties: { order_id: { type: "string" }, note: { type: "string" } },
        required: ["order_id"],
      },
    });
    const r = compareDefinitions(order(), to, 1, 2);
    expect(r.contract.compatible).toBe(true);
    expect(r.upgrade.compatible).toBe(true);
  });

  it("breaks the contract when the output loses a promised field, not when it gains one", () => {
    const fewer = compareDefinitions(order(), order({ output: { done: true } }), 1, 2);
    expect(fewer.contract.compatible).toBe(false);
    const lost = fewer.issues.find((i) => i.address === "output" && i.path === "/properties/charge");
    expect(lost).toMatchObject({ member: "contract", gating: true });
    expect(lost?.message).toContain('the promised output requires "charge", which the new output never declares');
    const more = compareDefinitions(order(), order({ output: { charge: "$: outputs.charge.id", extra: 1 } }), 1, 2);
    expect(more.contract.compatible).toBe(true);
    expect(more.changed).toEqual([{ address: "output", task: null }]);
  });

  it("breaks the contract when an external task's waiting event loses a field of its input", () => {
    const ask = (input: Record<string, unknown>) =>
      decoded({
        name: "ask",
        input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
        tasks: [{ id: "approve", action: { type: "external", input } }],
      });
    const r = compareDefinitions(ask({ amount: "$: input.n", note: "x" }), ask({ note: "x" }), 1, 2);
    const lost = r.issues.find((i) => i.address === "tasks.approve" && i.member === "contract");
    expect(lost?.message).toContain("the external_task.waiting event's input may break what the old version sent");
    expect(r.contract.compatible).toBe(false);
    const more = compareDefinitions(ask({ note: "x" }), ask({ note: "x", amount: "$: input.n" }), 1, 2);
    expect(more.issues.filter((i) => i.member === "contract")).toEqual([]);
  });

  it("reports a reordering of tasks as a process-level change", () => {
    const a = decoded({ name: "p", tasks: [{ id: "x" }, { id: "y" }, { id: "z" }] });
    const b = decoded({ name: "p", tasks: [{ id: "x" }, { id: "z" }, { id: "y" }] });
    expect(compareDefinitions(a, b, null, null).changed).toContainEqual({ address: "tasks", task: null });
  });

  it("gates upgrade when the children of a child_map are keyed differently, not when only their input changes", () => {
    const ctx = { processExists: () => true };
    const from = decoded(
      {
        name: "p",
        tasks: [{ id: "fan", action: { type: "child_map", children: { a: { name: "q" }, b: { name: "q" } } } }],
      },
      ctx,
    );
    const rekeyed = decoded(
      {
        name: "p",
        tasks: [{ id: "fan", action: { type: "child_map", children: { a: { name: "q" }, c: { name: "q" } } } }],
      },
      ctx,
    );
    const reinput = decoded(
      {
        name: "p",
        tasks: [
          {
            id: "fan",
            action: { type: "child_map", children: { a: { name: "q", input: { x: 1 } }, b: { name: "q" } } },
          },
        ],
      },
      ctx,
    );
    expect(compareDefinitions(from, rekeyed, 1, 2).issues).toContainEqual(
      expect.objectContaining({ address: "tasks.fan.action", path: "/children", gating: true }),
    );
    expect(compareDefinitions(from, reinput, 1, 2).upgrade.compatible).toBe(true);
  });

  it("gates upgrade when a delay becomes a fetch: the parked instance waits for a timer", () => {
    const from = decoded({ name: "p", tasks: [{ id: "wait", action: { type: "delay", for: "1h" } }] });
    const to = decoded({ name: "p", tasks: [{ id: "wait", action: { type: "fetch", url: URL } }] });
    expect(upgradeBlockers(from, to, 1, 2, ["wait"])).toEqual([
      expect.objectContaining({ task: "wait", address: "tasks.wait.action", path: "/type" }),
    ]);
  });

  it("gates every sitting task when the stored input no longer fits", () => {
    const to = order({
      input: { type: "object", properties: { order_id: { type: "integer" } }, required: ["order_id"] },
    });
    const blockers = upgradeBlockers(order(), to, 1, 2, ["charge"]);
    expect(blockers).toEqual([
      expect.objectContaining({
        member: "upgrade",
        address: "input_schema",
        path: "/properties/order_id/type",
        task: "charge",
      }),
    ]);
  });

  it("keeps gates apart from positions: computed once, applied to wherever the instances sit", () => {
    const to = order({
      input: { type: "object", properties: { order_id: { type: "integer" } }, required: ["order_id"] },
      ship: { action: { type: "delay", for: "1h" } },
    });
    const gates = upgradeGates(order(), to, 1, 2);
    expect(gates.find((g) => g.address === "input_schema")?.affects, "the stored input concerns every task").toBeNull();
    expect(gates.find((g) => g.address === "tasks.ship.action")?.affects).toEqual(["ship"]);
    for (const sittingOn of [["charge"], ["ship"], ["ship", "charge"], ["charge", "ship"], []])
      expect(blockersOn(gates, sittingOn), sittingOn.join()).toEqual(upgradeBlockers(order(), to, 1, 2, sittingOn));
    expect(blockersOn(gates, ["charge", "ship"]).map((b) => `${b.address}@${b.task}`)).toEqual([
      "tasks.ship.action@ship",
      "input_schema@charge",
    ]);
  });

  it("checks an output stored in a loop against the new version when the instance sits in the loop", () => {
    const loop = (schema: Record<string, unknown>) =>
      decoded({
        name: "poll",
        tasks: [
          {
            id: "check",
            action: { type: "fetch", url: URL, result_schema: schema },
            switch: [{ case: "self.output.done", goto: "end" }, { goto: "$check" }],
          },
        ],
      });
    const from = loop({ type: "object", properties: { done: { type: "boolean" } }, required: ["done"] });
    const to = loop({
      type: "object",
      properties: { done: { type: "boolean" }, eta: { type: "integer" } },
      required: ["done", "eta"],
    });
    expect(upgradeBlockers(from, to, 1, 2, ["check"]), "a previous visit's output is still in the state").toHaveLength(
      1,
    );
  });

  it("describes a process found on one side only as compatible with nothing compared", () => {
    expect(onlyOnOneSide("gone", "from", 3)).toEqual({
      name: "gone",
      status: "only_in_from",
      from: 3,
      to: null,
      upgrade: { compatible: true },
      contract: { compatible: true },
      changed: [],
      issues: [],
    });
    expect(onlyOnOneSide("new", "to", null)).toMatchObject({ status: "only_in_to", from: null, to: null });
  });

  it("reports an excused member's issues as non-gating and keeps what was found", () => {
    const to = order({
      input: { type: "object", properties: { order_id: { type: "string", maxLength: 8 } }, required: ["order_id"] },
    });
    const r = compareDefinitions(order(), to, 1, 2);
    const excused = excuseMembers(r, new Set(["contract"]));
    expect(excused.contract.compatible, "compatible still reports the break").toBe(false);
    expect(excused.issues.filter((i) => i.member === "contract").map((i) => i.gating)).toEqual([false]);
    expect(excused.issues.filter((i) => i.member === "upgrade")).toEqual(
      r.issues.filter((i) => i.member === "upgrade"),
    );
    expect(excuseMembers(r, new Set())).toBe(r);
  });
});
