// Definitions the browser tests register through the real API.

export const ORDER_V1 = {
  name: "order",
  input_schema: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
  tasks: [
    { id: "prepare", output: { item: "$: input.item", quantity: 2 } },
    {
      id: "approve",
      action: {
        type: "external",
        input: { item: "$: outputs.prepare.item" },
        result_schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
      },
      output: { ok: "$: self.result.ok" },
      switch: [{ case: "self.output.ok", goto: "$ship" }, { goto: "$reject" }],
    },
    { id: "ship", output: { shipped: "$: outputs.prepare.item" }, switch: "end" },
    { id: "reject", switch: [{ raise: { code: "declined", message: "not approved" } }] },
  ],
  output: { shipped: "$: outputs.ship.shipped ?? 'nothing'" },
};

/** v2 adds a notification step before shipping: a diff of a few lines. */
export const ORDER_V2 = {
  ...ORDER_V1,
  tasks: [
    ORDER_V1.tasks[0],
    { ...ORDER_V1.tasks[1], switch: [{ case: "self.output.ok", goto: "$notify" }, { goto: "$reject" }] },
    { id: "notify", output: { note: "approved" } },
    ...ORDER_V1.tasks.slice(2),
  ],
};

/** Fails at once: nothing listens on port 1 (pre.error, never retried). */
export const BROKEN = {
  name: "broken",
  tasks: [{ id: "call", action: { type: "fetch", url: "http://127.0.0.1:1/nothing", method: "get" } }],
};

/** One external task whose worker input names the document (so a claim can be told apart). */
export const APPROVAL = {
  name: "approval",
  input_schema: { type: "object", properties: { doc: { type: "string" } }, required: ["doc"] },
  tasks: [{ id: "review", action: { type: "external", input: { doc: "$: input.doc" } } }],
};

/** Completes at once (a routing-only task): cheap rows for the pagination test. */
export const TICK = { name: "tick", tasks: [{ id: "done", output: { n: 1 } }] };

/** A root with three TICK children: a tree that settles at once. */
export const TICKS = {
  name: "ticks",
  tasks: [
    {
      id: "each",
      action: { type: "child_map", children: { a: { name: "tick" }, b: { name: "tick" }, c: { name: "tick" } } },
    },
  ],
};

/** One fetch against a testkit upstream the test controls; without on_error a non-2xx fails it. */
export function chargeDefinition(upstreamUrl: string) {
  return {
    name: "charge",
    tasks: [
      {
        id: "charge",
        action: {
          type: "fetch",
          url: `${upstreamUrl}/charge`,
          method: "post",
          result_schema: { type: "object", properties: { receipt: { type: "string" } }, required: ["receipt"] },
        },
        output: { receipt: "$: self.result.receipt" },
      },
    ],
    output: { receipt: "$: outputs.charge.receipt" },
  };
}

/** A child (input `{n}`) that waits on one external task "wait" until the test resolves it, then outputs the result. */
export const LEAF = {
  name: "leaf",
  input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
  tasks: [{ id: "wait", action: { type: "external" }, output: { got: "$: self.result" } }],
  output: { got: "$: outputs.wait.got" },
};

/** A child that is itself a parent: one leaf child (a tree three levels deep under FAN). */
export const MID = { name: "mid", tasks: [{ id: "inner", action: { type: "child", name: "leaf", input: { n: 0 } } }] };

/** A root that spawns a child_map (a leaf and a mid) and then a child_list of leaves over input.items. */
export const FAN = {
  name: "fan",
  input_schema: { type: "object", properties: { items: { type: "array" } }, required: ["items"] },
  tasks: [
    {
      id: "pair",
      action: { type: "child_map", children: { left: { name: "leaf", input: { n: 0 } }, deep: { name: "mid" } } },
    },
    { id: "each", action: { type: "child_list", name: "leaf", over: "$: input.items" } },
  ],
};

/** A root whose child "bad" (BROKEN) fails at once while its sibling "slow" (LEAF) still waits: the root is `failing`. */
export const RISKY = {
  name: "risky",
  tasks: [
    {
      id: "both",
      action: { type: "child_map", children: { bad: { name: "broken" }, slow: { name: "leaf", input: { n: 0 } } } },
    },
  ],
};

/** LEAF under another name, so the wide fan-out below stays apart from the other trees in lists. */
export const SLOT = { ...LEAF, name: "slot" };

/** Fans out one SLOT per element of input.items: a child_list wider than one page of the tree, and stored apart by the API. */
export const WIDE = {
  name: "wide",
  input_schema: { type: "object", properties: { items: { type: "array" } }, required: ["items"] },
  tasks: [{ id: "each", action: { type: "child_list", name: "slot", over: "$: input.items" } }],
};

/** A root whose one child is WIDE: the wide list sits one level down the tree. */
export const OUTER = {
  name: "outer",
  input_schema: { type: "object", properties: { items: { type: "array" } }, required: ["items"] },
  tasks: [{ id: "fan", action: { type: "child", name: "wide", input: { items: "$: input.items" } } }],
};

/**
 * A human approval: an external task whose result_schema reaches a definition-level `$defs`
 * entry, with two declared errors (one carrying data), an hour's deadline, and the result as
 * the instance output. The tasklist tests resolve it through the generated form.
 */
export const EXPENSE = {
  name: "expense",
  input_schema: { type: "object", properties: { amount: { type: "integer" } }, required: ["amount"] },
  $defs: { person: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
  tasks: [
    {
      id: "approve",
      action: {
        type: "external",
        input: { amount: "$: input.amount" },
        timeout: "1h",
        result_schema: {
          type: "object",
          properties: {
            approved: { type: "boolean" },
            amount: { type: "integer", minimum: 1 },
            level: { type: "string", enum: ["low", "high"] },
            approver: { $ref: "#/$defs/person" },
          },
          required: ["approved", "amount", "approver"],
        },
      },
      raises: {
        rejected: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
        withdrawn: null,
      },
      output: { decision: "$: self.result" },
    },
  ],
  output: { decision: "$: outputs.approve.decision" },
};
