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

/** Version 3 of order: drops the task "approve" that a parked order sits on, so the upgrade check refuses it there. */
export const ORDER_V3_WITHOUT_APPROVE = {
  name: "order",
  input_schema: ORDER_V1.input_schema,
  tasks: [ORDER_V1.tasks[0], { id: "ship", output: { shipped: "$: outputs.prepare.item" } }],
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

/** Forty routing tasks: a canonical JSON of a few hundred lines, the first change far down in LONG_V2. */
export const LONG_V1 = {
  name: "long",
  tasks: Array.from({ length: 40 }, (_, i) => ({ id: `step${i + 1}`, output: { n: i + 1, label: `step ${i + 1}` } })),
};

/** LONG_V1 with step 30's output and step 38's output changed: two changes, far apart. */
export const LONG_V2 = {
  ...LONG_V1,
  tasks: LONG_V1.tasks.map((task) =>
    task.id === "step30"
      ? { ...task, output: { ...task.output, label: "step thirty" } }
      : task.id === "step38"
        ? { ...task, output: { ...task.output, n: 380 } }
        : task,
  ),
};

/**
 * A task with many labelled branches: four switch cases (long conditions, a raise), two
 * on_error rules with several codes, and on_error on another task, so the labels of both
 * sides crowd around the same rows.
 */
export const BRANCHY = {
  name: "branchy",
  input_schema: {
    type: "object",
    properties: { currency: { type: "string" }, flagged: { type: "boolean" }, region: { type: "string" } },
  },
  tasks: [
    {
      id: "route",
      action: {
        type: "fetch",
        url: "http://127.0.0.1:1/price",
        method: "get",
        result_schema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
      },
      output: { amount: "$: self.result.amount" },
      switch: [
        { case: "self.output.amount > 10000 && input.currency == 'EUR'", goto: "$big" },
        { case: "self.output.amount > 100", goto: "$medium" },
        { case: "input.flagged == true", raise: { code: "fraud_suspected", message: "flagged" } },
        { case: "input.region == 'us'", goto: "next" },
        { goto: "$small" },
      ],
      on_error: [
        { code: ["http.503", "http.504", "http.502"], goto: "$small" },
        { code: ["pre.error"], goto: "$medium" },
      ],
    },
    { id: "us", action: { type: "fetch", url: "http://127.0.0.1:1/us", method: "get" }, on_error: [{ goto: "$big" }] },
    { id: "big", switch: "end" },
    { id: "medium", switch: "end" },
    { id: "small" },
  ],
};

/** Three children spawned in the order a, b, c: two leaves that wait and, last, one that fails at once. */
export const MIXED = {
  name: "mixed",
  tasks: [
    {
      id: "trio",
      action: {
        type: "child_map",
        children: { a: { name: "leaf", input: { n: 1 } }, b: { name: "leaf", input: { n: 2 } }, c: { name: "broken" } },
      },
    },
  ],
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

/** An external review that loops back to itself until a reviewer answers ok: a task visited again. */
export const RECHECK = {
  name: "recheck",
  tasks: [
    {
      id: "review",
      action: {
        type: "external",
        result_schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
      },
    },
    { id: "again", switch: [{ case: "outputs.review.ok", goto: "end" }, { goto: "$review" }] },
  ],
  output: { ok: "$: outputs.review.ok" },
};
