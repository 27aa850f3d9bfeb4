import { describe, expect, it } from "vitest";
import { decoded, expectProblem, fetchDef, problemsOf } from "../../test/helpers.js";

describe("the document", () => {
  it("decodes a minimal definition to its canonical form", () => {
    expect(decoded({ name: "p", tasks: [{ id: "a" }] })).toEqual({
      name: "p",
      tasks: [{ id: "a", switch: [], on_error: [] }],
    });
  });

  it("refuses a non-object", () => {
    expect(problemsOf([1])).toEqual([
      { path: "", message: "expected a definition object {name, tasks, …}, got an array" },
    ]);
  });

  it("refuses a version field: versions are assigned by the server", () => {
    const p = expectProblem(problemsOf({ name: "p", version: 2, tasks: [{ id: "a" }] }), "", 'unknown field "version"');
    expect(p.message).toContain("assigned by the server");
    expect(p.process).toBe("p");
  });

  it("refuses unknown top-level fields with a suggestion", () => {
    expectProblem(
      problemsOf({ name: "p", tasks: [{ id: "a" }], input_shema: {} }),
      "",
      'unknown field "input_shema" (did you mean "input_schema"?)',
    );
  });

  it.each(["P", "-p", "", "a b", "x".repeat(129), "ünï"])("refuses the name %j", (name) => {
    expectProblem(problemsOf({ name, tasks: [{ id: "a" }] }), "name", "not a valid process name");
  });

  it.each(["p", "0p", "order.v2", "a_b-c", "x".repeat(128)])("accepts the name %j", (name) => {
    expect(decoded({ name, tasks: [{ id: "a" }] }).name).toBe(name);
  });

  it("requires a name and at least one task", () => {
    expectProblem(problemsOf({ tasks: [{ id: "a" }] }), "", "needs a name");
    expectProblem(problemsOf({ name: "p" }), "", "needs tasks");
    expectProblem(problemsOf({ name: "p", tasks: [] }), "tasks", "at least one task");
    expectProblem(problemsOf({ name: "p", tasks: {} }), "tasks", "expected an array of tasks, got an object");
    expectProblem(
      problemsOf({ name: 5, tasks: [{ id: "a" }] }),
      "name",
      "expected a process name string, got a number",
    );
  });

  it("collects every problem instead of stopping at the first", () => {
    const problems = problemsOf({ name: "P", version: 1, tasks: [{ id: "end" }, { id: "b", only_once: "yes" }] });
    expect(problems.length).toBeGreaterThanOrEqual(4);
  });

  it("carries the process name and the task id in task problems", () => {
    const p = expectProblem(
      problemsOf(fetchDef({}, { on_error: [{ code: "http.500", retires: 1 }] })),
      "tasks[0].on_error[0]",
      'unknown field "retires"',
    );
    expect(p).toMatchObject({ process: "p", task: "call" });
  });
});

describe("input_schema, config_schema and $defs", () => {
  it("keeps schemas and checks them against the subset", () => {
    const def = decoded({
      name: "p",
      input_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      tasks: [{ id: "a" }],
    });
    expect(def.input_schema).toEqual({ type: "object", properties: { id: { type: "string" } }, required: ["id"] });
    expectProblem(
      problemsOf({
        name: "p",
        input_schema: { type: "object", properties: { e: { type: "string", format: "email" } } },
        tasks: [{ id: "a" }],
      }),
      "input_schema.properties.e",
      'unknown field "format"',
    );
  });

  it("requires input_schema to describe an object", () => {
    expectProblem(
      problemsOf({ name: "p", input_schema: { type: "string" }, tasks: [{ id: "a" }] }),
      "input_schema",
      "must describe an object",
    );
  });

  it("resolves $ref against $defs and refuses unknown names", () => {
    decoded({
      name: "p",
      $defs: { money: { type: "integer" } },
      input_schema: { type: "object", properties: { m: { $ref: "#/$defs/money" } } },
      tasks: [{ id: "a" }],
    });
    expectProblem(
      problemsOf({
        name: "p",
        $defs: { money: { type: "integer" } },
        input_schema: { type: "object", properties: { m: { $ref: "#/$defs/mony" } } },
        tasks: [{ id: "a" }],
      }),
      "input_schema.properties.m.$ref",
      "names no schema in $defs (known: money)",
    );
    expectProblem(
      problemsOf({ name: "p", $defs: { "bad name": {} }, tasks: [{ id: "a" }] }),
      '$defs["bad name"]',
      "must match",
    );
  });

  it("accepts a flat config_schema and refuses nested settings", () => {
    decoded({
      name: "p",
      config_schema: {
        type: "object",
        properties: { API_URL: { type: "string", default: "https://x" }, KEY: { type: "string", secret: true } },
      },
      tasks: [{ id: "a" }],
    });
    expectProblem(
      problemsOf({
        name: "p",
        config_schema: { type: "object", properties: { nested: { type: "object" } } },
        tasks: [{ id: "a" }],
      }),
      "config_schema.properties.nested",
      "config_schema is flat",
    );
    expectProblem(
      problemsOf({ name: "p", config_schema: { type: "string" }, tasks: [{ id: "a" }] }),
      "config_schema",
      'must be {type: "object"',
    );
  });
});

describe("reachability", () => {
  it("reports a task no path reaches", () => {
    const p = expectProblem(
      problemsOf({ name: "p", tasks: [{ id: "a", switch: "end" }, { id: "b" }] }),
      "tasks[1]",
      'task "b" is never reached',
    );
    expect(p.task).toBe("b");
  });

  it("counts fall-through, switch gotos and on_error gotos", () => {
    decoded({
      name: "p",
      tasks: [
        { id: "a", action: { type: "fetch", url: "https://x" }, on_error: [{ goto: "$recover" }] },
        { id: "b", switch: [{ case: "true", goto: "$d" }, { goto: "end" }] },
        { id: "recover", switch: "end" },
        { id: "d" },
      ],
    });
  });

  it("does not count a fall-through from a task whose switch always jumps", () => {
    expectProblem(
      problemsOf({ name: "p", tasks: [{ id: "a", switch: [{ goto: "$c" }] }, { id: "b" }, { id: "c" }] }),
      "tasks[1]",
      "never reached",
    );
  });
});

describe("raise and panic of one code", () => {
  it("refuses a code that is both raised and panicked", () => {
    const p = expectProblem(
      problemsOf({
        name: "p",
        tasks: [
          {
            id: "a",
            switch: [{ case: "true", raise: { code: "bad", message: "x" } }, { panic: { code: "bad", message: "y" } }],
          },
        ],
      }),
      "tasks[0].switch[1].panic",
      'code "bad" is both raised (tasks[0].switch[0].raise)',
    );
    expect(p.task).toBe("a");
  });

  it("counts raises keys as raised", () => {
    expectProblem(
      problemsOf({
        name: "p",
        tasks: [{ id: "a", raises: { bad: null }, switch: [{ panic: { code: "bad", message: "y" } }] }],
      }),
      "tasks[0].switch[0].panic",
      "both raised",
    );
  });
});

describe("paths when a task cannot be decoded", () => {
  it("reports later tasks' problems at the index the author wrote", () => {
    const ps = problemsOf({ name: "p", tasks: ["oops", { id: "b", output: "$: nope" }] });
    expect(ps.map((p) => p.path)).toEqual(["tasks[0]", "tasks[1].output"]);
  });
});
