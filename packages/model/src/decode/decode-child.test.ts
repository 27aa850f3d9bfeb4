import { describe, expect, it } from "vitest";
import { decoded, expectProblem, problemsOf } from "../../test/helpers.js";
import type { DecodeContext } from "./decode-definition.js";

const registry: DecodeContext = {
  processExists: (n) => ["billing", "ship"].includes(n),
  processRaises: (n) => (n === "billing" ? ["card_declined", "fraud"] : n === "ship" ? [] : undefined),
};
const parent = (
  action: Record<string, unknown>,
  task: Record<string, unknown> = {},
  def: Record<string, unknown> = {},
) => ({
  name: "order",
  input_schema: {
    type: "object",
    properties: { lines: { type: "array", items: { type: "object" } } },
    required: ["lines"],
  },
  tasks: [{ id: "kids", action, ...task }, { id: "after" }],
  ...def,
});
const A = "tasks[0].action";

describe("child", () => {
  it("decodes name, version, input and result_schema; version 0 means absent", () => {
    expect(
      decoded(
        parent({ type: "child", name: "billing", version: 3, input: { n: 1 }, result_schema: { type: "object" } }),
        registry,
      ).tasks[0].action,
    ).toEqual({
      type: "child",
      name: "billing",
      version: 3,
      input: { n: 1 },
      result_schema: { type: "object" },
    });
    expect(decoded(parent({ type: "child", name: "billing", version: 0 }), registry).tasks[0].action).toEqual({
      type: "child",
      name: "billing",
    });
  });

  it("refuses a child that does not exist, unless it is the process itself or in the batch", () => {
    expectProblem(
      problemsOf(parent({ type: "child", name: "nope" }), registry),
      `${A}.name`,
      'child process "nope" does not exist',
    );
    decoded(parent({ type: "child", name: "order" }), registry);
    decoded(parent({ type: "child", name: "nope" }), { ...registry, batchNames: ["nope"] });
  });

  it("does not check names without a registry", () => {
    decoded(parent({ type: "child", name: "anything" }));
  });

  it("refuses bad names and versions", () => {
    expectProblem(problemsOf(parent({ type: "child", name: "Bad Name" })), `${A}.name`, "not a valid process name");
    expectProblem(problemsOf(parent({ type: "child" })), A, "needs name");
    expectProblem(problemsOf(parent({ type: "child", name: "x", version: -1 })), `${A}.version`, "positive integer");
    expectProblem(problemsOf(parent({ type: "child", name: "x", version: "2" })), `${A}.version`, "got a string");
  });

  it("refuses on_error patterns no child can raise", () => {
    expectProblem(
      problemsOf(
        parent({ type: "child", name: "billing" }, { on_error: [{ code: "card_decline", goto: "end" }] }),
        registry,
      ),
      "tasks[0].on_error[0].code[0]",
      'no child of this task can raise "card_decline" (they raise: card_declined, fraud, output.invalid)',
    );
  });

  it("accepts patterns matching a child's raises or output.invalid", () => {
    decoded(
      parent(
        { type: "child", name: "billing" },
        {
          on_error: [
            { code: ["card_declined", "output.invalid"], goto: "end" },
            { code: "fr%", goto: "end" },
          ],
        },
      ),
      registry,
    );
  });

  it("skips the check when a child's raises are unknown", () => {
    decoded(parent({ type: "child", name: "x" }, { on_error: [{ code: "whatever", goto: "end" }] }), {
      processExists: () => true,
    });
  });

  it("uses the process's own raises for a child of itself", () => {
    const def = {
      name: "order",
      tasks: [
        {
          id: "kids",
          action: { type: "child", name: "order" },
          on_error: [{ code: "nested_fail", goto: "end" }],
          switch: [{ raise: { code: "nested_fail", message: "x" } }],
        },
      ],
    };
    decoded(def, registry);
  });
});

describe("child_map", () => {
  it("decodes children by key", () => {
    const a = decoded(
      parent({
        type: "child_map",
        children: { pay: { name: "billing", input: "$: input" }, send: { name: "ship", version: 2 } },
      }),
      registry,
    ).tasks[0].action;
    expect(a).toEqual({
      type: "child_map",
      children: { pay: { name: "billing", input: "$: input" }, send: { name: "ship", version: 2 } },
    });
  });

  it("checks each child", () => {
    const ps = problemsOf(
      parent({ type: "child_map", children: { pay: { name: "nope" }, "bad key": { name: "ship", extra: 1 } } }),
      registry,
    );
    expectProblem(ps, `${A}.children.pay.name`, "does not exist");
    expectProblem(ps, `${A}.children["bad key"]`, 'child key "bad key"');
    expectProblem(ps, `${A}.children["bad key"]`, 'unknown field "extra"');
    expectProblem(problemsOf(parent({ type: "child_map", children: {} })), `${A}.children`, "at least one child");
    expectProblem(problemsOf(parent({ type: "child_map" })), A, "needs children");
  });

  it("checks on_error patterns against the union of the children's raises", () => {
    decoded(
      parent(
        { type: "child_map", children: { a: { name: "billing" }, b: { name: "ship" } } },
        { on_error: [{ code: "fraud", goto: "end" }] },
      ),
      registry,
    );
    expectProblem(
      problemsOf(
        parent(
          { type: "child_map", children: { a: { name: "ship" } } },
          { on_error: [{ code: "fraud", goto: "end" }] },
        ),
        registry,
      ),
      "tasks[0].on_error[0].code[0]",
      'can raise "fraud"',
    );
  });
});

describe("child_list", () => {
  it("decodes name, over and result_schema", () => {
    expect(
      decoded(
        parent({ type: "child_list", name: "ship", over: "$: input.lines", result_schema: { type: "object" } }),
        registry,
      ).tasks[0].action,
    ).toEqual({
      type: "child_list",
      name: "ship",
      over: "$: input.lines",
      result_schema: { type: "object" },
    });
  });

  it("requires over to be a $: array expression", () => {
    expectProblem(
      problemsOf(parent({ type: "child_list", name: "ship", over: "input.lines" })),
      `${A}.over`,
      'must be a "$: <array expression>"',
    );
    expectProblem(problemsOf(parent({ type: "child_list", name: "ship" })), A, "needs over");
    expectProblem(
      problemsOf(parent({ type: "child_list", name: "ship", over: "$: 'x'" })),
      `${A}.over`,
      "expected an array expression, got string",
    );
  });

  it("refuses input: each element is the child input", () => {
    expectProblem(
      problemsOf(parent({ type: "child_list", name: "ship", over: "$: input.lines", input: {} })),
      A,
      'unknown field "input"',
    );
  });
});

describe("engine codes on child tasks", () => {
  it("refuses exact engine codes other than output.invalid, even without a registry", () => {
    expectProblem(
      problemsOf(parent({ type: "child", name: "x" }, { on_error: [{ code: "http.500", goto: "end" }] })),
      "tasks[0].on_error[0].code[0]",
      "catches only codes its children raise, and output.invalid",
    );
    decoded(
      parent({ type: "child", name: "x" }, { on_error: [{ code: ["output.invalid", "some_code"], goto: "end" }] }),
    );
  });
});
