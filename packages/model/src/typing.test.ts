// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation, not a mistaken JS template
import { describe, expect, it } from "vitest";
import { decoded, expectProblem, problemsOf } from "../test/helpers.js";
import type { Definition } from "./definition.js";
import { typeDefinition } from "./typing.js";

const input = {
  type: "object",
  properties: { id: { type: "string" }, note: { type: "string" }, n: { type: "integer" } },
  required: ["id", "n"],
};

describe("roots", () => {
  it("reads input only when input_schema exists", () => {
    decoded({ name: "p", input_schema: input, tasks: [{ id: "a", output: { id: "$: input.id" } }] });
    const p = expectProblem(
      problemsOf({ name: "p", tasks: [{ id: "a", output: { id: "$: input.id" } }] }),
      "tasks[0].output.id",
      "process declares no input_schema",
    );
    expect(p.task).toBe("a");
  });

  it("refuses unknown roots, listing the available ones", () => {
    expectProblem(
      problemsOf({ name: "p", tasks: [{ id: "a", output: "$: inputs.x" }] }),
      "tasks[0].output",
      'unknown root "inputs"',
    );
  });

  it("refuses unknown properties where the schema is known", () => {
    expectProblem(
      problemsOf({ name: "p", input_schema: input, tasks: [{ id: "a", output: "$: input.idd" }] }),
      "tasks[0].output",
      'unknown property "idd" of input',
    );
  });

  it("reads config only when config_schema exists", () => {
    decoded({
      name: "p",
      config_schema: { type: "object", properties: { URL: { type: "string", default: "https://x" } } },
      tasks: [{ id: "a", output: "${config.URL}" }],
    });
    expectProblem(
      problemsOf({ name: "p", tasks: [{ id: "a", output: "$: config.URL" }] }),
      "tasks[0].output",
      "declares no config_schema",
    );
  });

  it("refuses interpolating a value that may be null without ??", () => {
    expectProblem(
      problemsOf({ name: "p", input_schema: input, tasks: [{ id: "a", output: "hi ${input.note}" }] }),
      "tasks[0].output",
      "may be null",
    );
    decoded({ name: "p", input_schema: input, tasks: [{ id: "a", output: "hi ${input.note ?? 'you'}" }] });
    decoded({ name: "p", input_schema: input, tasks: [{ id: "a", output: "hi ${input.id}" }] });
  });

  it("reports syntax errors at their shape path with a caret", () => {
    const p = expectProblem(
      problemsOf({ name: "p", tasks: [{ id: "a", output: { deep: ["ok", "$: 1 +"] } }] }),
      "tasks[0].output.deep[1]",
      "expected",
    );
    expect(p.message).toMatch(/\n.*\n\s*\^/);
  });

  it("reports every syntax error of a shape", () => {
    const ps = problemsOf({ name: "p", tasks: [{ id: "a", output: { x: "$: (", y: "${ }" } }] });
    expectProblem(ps, "tasks[0].output.x", "");
    expectProblem(ps, "tasks[0].output.y", "empty interpolation");
  });
});

describe("outputs", () => {
  it("types outputs of earlier tasks as set, later ones as maybe null", () => {
    decoded({
      name: "p",
      tasks: [
        { id: "a", output: { v: "x" } },
        { id: "b", output: "${outputs.a.v}" },
      ],
    });
    expectProblem(
      problemsOf({
        name: "p",
        tasks: [
          { id: "a", output: "${outputs.b.v}" },
          { id: "b", output: { v: "x" } },
        ],
      }),
      "tasks[0].output",
      "may be null",
    );
  });

  it("exports an action task's result when it has no output, as the engine does", () => {
    const def = {
      name: "p",
      tasks: [
        {
          id: "a",
          action: {
            type: "fetch",
            url: "https://x",
            result_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
          },
        },
        { id: "b", output: "${outputs.a.id}" },
      ],
    };
    expect(typeDefinition(decoded(def)).tasks[0].output).toEqual({
      type: "object",
      properties: { id: { type: "string" } },
      required: ["id"],
    });
    expectProblem(
      problemsOf({ ...def, tasks: [def.tasks[0], { id: "b", output: "$: outputs.a.nope" }] }),
      "tasks[1].output",
      'unknown property "nope"',
    );
  });

  it("gives routing tasks without output no outputs entry", () => {
    expectProblem(
      problemsOf({ name: "p", tasks: [{ id: "a" }, { id: "b", output: "$: outputs.a" }] }),
      "tasks[1].output",
      'unknown property "a" of outputs',
    );
  });

  it("refuses an unknown task id", () => {
    expectProblem(
      problemsOf({
        name: "p",
        tasks: [
          { id: "a", output: { v: 1 } },
          { id: "b", output: "$: outputs.c" },
        ],
      }),
      "tasks[1].output",
      'unknown property "c" of outputs',
    );
  });

  it("knows a task's output is not set when entered through its own error edge", () => {
    const def = {
      name: "p",
      tasks: [
        { id: "a", action: { type: "fetch", url: "https://x" }, output: { v: "x" }, on_error: [{ goto: "$b" }] },
        { id: "b", output: "${outputs.a.v}" },
      ],
    };
    expectProblem(problemsOf(def), "tasks[1].output", "may be null");
  });

  it("types an output through another task's output (fixpoint)", () => {
    const def = decoded({
      name: "p",
      tasks: [
        { id: "a", output: { n: 1 } },
        { id: "b", output: { m: "$: outputs.a.n + 1" } },
      ],
    });
    const t = typeDefinition(def);
    expect(t.tasks[1].output).toEqual({ type: "object", properties: { m: { type: "integer" } }, required: ["m"] });
  });

  it("reaches a fixpoint through a loop", () => {
    const def = decoded({
      name: "p",
      tasks: [
        {
          id: "a",
          output: { n: "$: (self.previous.n ?? 0) + 1" },
          switch: [{ case: "self.output.n < 3", goto: "$a" }, { goto: "end" }],
        },
      ],
    });
    expect(typeDefinition(def).tasks[0].output).toEqual({
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
    });
  });
});

describe("self", () => {
  const fetchTask = (extra: Record<string, unknown>) => ({
    name: "p",
    tasks: [
      {
        id: "a",
        action: {
          type: "fetch",
          url: "https://x",
          result_schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
        },
        ...extra,
      },
    ],
  });

  it("types self.result by result_schema, with status and headers for fetch", () => {
    decoded(
      fetchTask({ output: { ok: "$: self.result.ok", s: "$: self.status", h: "$: self.headers['content-type']" } }),
    );
    expectProblem(
      problemsOf(fetchTask({ output: "$: self.result.nope" })),
      "tasks[0].output",
      'unknown property "nope" of self.result',
    );
  });

  it("lets the switch read self.output", () => {
    decoded(
      fetchTask({
        output: { ok: "$: self.result.ok" },
        switch: [{ case: "self.output.ok", goto: "end" }, { raise: { code: "not_ok", message: "no" } }],
      }),
    );
  });

  it("does not offer self.result to the request payload", () => {
    expectProblem(
      problemsOf({
        name: "p",
        tasks: [{ id: "a", action: { type: "fetch", url: "https://x", body: "$: self.result" } }],
      }),
      "tasks[0].action.body",
      'unknown property "result"',
    );
  });

  it("types self.result of child_list as an array", () => {
    const def = decoded({
      name: "p",
      input_schema: {
        type: "object",
        properties: { xs: { type: "array", items: { type: "object" } } },
        required: ["xs"],
      },
      tasks: [
        {
          id: "a",
          action: { type: "child_list", name: "p", over: "$: input.xs", result_schema: { type: "integer" } },
          output: { first: "$: self.result[0] ?? 0", n: "$: len(self.result)" },
        },
      ],
    });
    expect(typeDefinition(def).tasks[0].output).toMatchObject({ properties: { first: { type: "integer" } } });
  });
});

describe("error", () => {
  const def = (errOutput: string) => ({
    name: "p",
    tasks: [
      {
        id: "a",
        action: { type: "fetch", url: "https://x" },
        on_error: [{ code: "http.%", goto: "$handle" }],
        switch: "end",
      },
      { id: "handle", output: { code: errOutput } },
    ],
  });

  it("is readable in a task that an on_error goto targets", () => {
    decoded(def("$: error.code"));
    decoded(def("failed: ${error.message}"));
  });

  it("types error.data from the failing task's raises or non-2xx responses", () => {
    const ext = (output: string) => ({
      name: "p",
      tasks: [
        {
          id: "w",
          action: { type: "external" },
          raises: { declined: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] } },
          on_error: [{ code: "declined", goto: "$why" }],
          switch: "end",
        },
        { id: "why", output },
      ],
    });
    decoded(ext("$: error.data.reason"));
    expectProblem(problemsOf(ext("$: error.data.reasn")), "tasks[1].output", 'unknown property "reasn" of error.data');
    const f = {
      name: "p",
      tasks: [
        {
          id: "f",
          action: {
            type: "fetch",
            url: "https://x",
            responses: { "200": {}, "404": { type: "object", properties: { hint: { type: "string" } } } },
          },
          on_error: [{ code: "http.404", goto: "$h" }],
          switch: "end",
        },
        { id: "h", output: "$: error.data.hint" },
      ],
    };
    decoded(f);
    expect(typeDefinition(decoded(f)).tasks[1].output).toEqual({ type: ["string", "null"] });
  });

  it("is refused elsewhere", () => {
    expectProblem(
      problemsOf({ name: "p", tasks: [{ id: "a", output: "$: error.code" }] }),
      "tasks[0].output",
      'task "a" is not the target of any on_error goto',
    );
  });

  it("may be null in a task also entered normally", () => {
    const d = {
      name: "p",
      tasks: [
        { id: "a", action: { type: "fetch", url: "https://x" }, on_error: [{ goto: "$handle" }] },
        { id: "handle", output: "${error.code}" },
      ],
    };
    expectProblem(problemsOf(d), "tasks[1].output", "may be null");
  });
});

describe("process output", () => {
  it("reads outputs set on every path to completion", () => {
    decoded({ name: "p", tasks: [{ id: "a", output: { v: "x" } }], output: { v: "${outputs.a.v}" } });
  });

  it("treats outputs of tasks skipped on some path as maybe null", () => {
    const d = {
      name: "p",
      input_schema: input,
      tasks: [
        { id: "a", switch: [{ case: "input.n > 1", goto: "$b" }, { goto: "end" }] },
        { id: "b", output: { v: "x" } },
      ],
      output: "${outputs.b.v}",
    };
    expectProblem(problemsOf(d), "output", "may be null");
  });

  it("has no self or error", () => {
    expectProblem(problemsOf({ name: "p", tasks: [{ id: "a" }], output: "$: self" }), "output", "has no self");
  });
});

describe("typeDefinition", () => {
  it("infers payloads of each action kind", () => {
    const def: Definition = decoded({
      name: "p",
      input_schema: input,
      tasks: [
        { id: "f", action: { type: "fetch", url: "https://x", body: { id: "$: input.id" } } },
        { id: "e", action: { type: "external", input: { n: "$: input.n" } } },
        { id: "m", action: { type: "child_map", children: { x: { name: "p", input: { a: 1 } }, y: { name: "p" } } } },
      ],
    });
    const t = typeDefinition(def).tasks;
    expect(t[0].payload).toEqual({ type: "object", properties: { id: { type: "string" } }, required: ["id"] });
    expect(t[1].payload).toEqual({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] });
    expect(t[2].payload).toEqual({
      type: "object",
      properties: {
        x: { type: "object", properties: { a: { type: "integer" } }, required: ["a"] },
        y: { type: "null" },
      },
      required: ["x", "y"],
    });
  });
});

describe("paths of expression problems in actions", () => {
  it("names the child_map child, header, query and url", () => {
    const ps = problemsOf({
      name: "p",
      tasks: [
        { id: "m", action: { type: "child_map", children: { pay: { name: "p", input: { x: "$: nope" } } } } },
        {
          id: "f",
          action: { type: "fetch", url: "https://x/${nope}", headers: { "X-A": "$: nope" }, query: { q: ["$: nope"] } },
        },
      ],
    });
    expectProblem(ps, "tasks[0].action.children.pay.input.x", 'unknown root "nope"');
    expectProblem(ps, "tasks[1].action.url", 'unknown root "nope"');
    expectProblem(ps, 'tasks[1].action.headers["X-A"]', 'unknown root "nope"');
    expectProblem(ps, "tasks[1].action.query.q[0]", 'unknown root "nope"');
  });
});

describe("schemas with their own $defs", () => {
  it("resolves references to an input_schema's own $defs", () => {
    const input_schema = {
      $defs: { id: { type: "string" } },
      type: "object",
      properties: { a: { $ref: "#/$defs/id" } },
      required: ["a"],
    };
    decoded({ name: "p", input_schema, tasks: [{ id: "t", output: "${input.a}" }] });
    const def = decoded({ name: "p", input_schema, tasks: [{ id: "t", output: { n: "$: len(input.a)" } }] });
    expect(typeDefinition(def).tasks[0].output).toEqual({
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
    });
  });

  it("resolves references to a result_schema's own $defs", () => {
    const result_schema = {
      $defs: { money: { type: "object", properties: { cents: { type: "integer" } }, required: ["cents"] } },
      $ref: "#/$defs/money",
    };
    expectProblem(
      problemsOf({
        name: "p",
        tasks: [{ id: "t", action: { type: "fetch", url: "https://x", result_schema }, output: "$: self.result.cent" }],
      }),
      "tasks[0].output",
      'unknown property "cent"',
    );
  });
});
