// Definitions the browser tests register through the real API.

export const ORDER_V1 = {
  name: "order",
  input_schema: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
  tasks: [
    { id: "prepare", output: { item: "$: input.item", quantity: 2 } },
    {
      id: "approve",
      action: { type: "external", input: { item: "$: outputs.prepare.item" }, result_schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } },
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
