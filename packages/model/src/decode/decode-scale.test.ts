// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation
import { describe, expect, it } from "vitest";
import { inferSchemas } from "../infer.js";
import { decodeDefinition } from "./decode-definition.js";

function chain(n: number): unknown {
  const tasks = Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    action: {
      type: "fetch",
      url: `https://svc.example.com/step/${i}?prev=\${outputs.t${Math.max(0, i - 1)}.n ?? 0}`,
      body: { i, prev: i > 0 ? `$: outputs.t${i - 1}` : null },
    },
    output: { n: i > 0 ? `$: outputs.t${i - 1}.n + 1` : 0 },
    on_error: [
      { code: ["pre.%", "http.5%"], retry: 2 },
      ...(i + 1 < n ? [{ code: "http.4%", goto: `$t${n - 1}` }] : []),
    ],
  }));
  return {
    name: "big",
    input_schema: { type: "object", properties: { id: { type: "string" } } },
    tasks,
    output: { last: `$: outputs.t${n - 1}.n` },
  };
}

describe("large definitions", () => {
  // Speed is the benchmark's business (no timing assertions in tests); this checks the
  // analyses stay correct, and do not overflow the stack, at a realistic upper size.
  it("decodes and infers a 300-task definition with long retry and goto chains", () => {
    const r = decodeDefinition(chain(300));
    expect(r.ok ? [] : r.problems.slice(0, 3)).toEqual([]);
    if (r.ok)
      expect(inferSchemas(r.definition, 1).process_output).toEqual({
        type: "object",
        properties: { last: { type: "integer" } },
        required: ["last"],
      });
  });
});

describe("the checker's bounds (docs/limits.md)", () => {
  it("refuses an output type that doubles with every task, at the task where it passes the bound", () => {
    // 1 KB of definition whose last output type written out has 2^40 nodes.
    const tasks = Array.from({ length: 40 }, (_, i) => ({
      id: `t${i}`,
      output: i === 0 ? { v: 1 } : { a: `$: outputs.t${i - 1}`, b: `$: outputs.t${i - 1}` },
    }));
    const r = decodeDefinition({ name: "double", tasks });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems).toHaveLength(1);
      expect(r.problems[0].path).toBe("tasks[12].output");
      expect(r.problems[0].message).toMatch(/more than 20000 schema nodes or 128 levels, docs\/limits\.md/);
    }
  });

  it("refuses outputs that nest the previous output deeper than the type depth bound", () => {
    const tasks = Array.from({ length: 200 }, (_, i) => ({
      id: `t${i}`,
      output: i === 0 ? { v: 1 } : { p: `$: outputs.t${i - 1}` },
    }));
    const r = decodeDefinition({ name: "deep", tasks });
    expect(r.ok ? [] : r.problems.map((p) => p.path)).toEqual(["tasks[63].output"]);
  });

  it("charges every read of outputs as a whole against the checker's budget", () => {
    const tasks = Array.from({ length: 400 }, (_, i) => ({ id: `t${i}`, output: { n: "$: len(outputs)" } }));
    expect(decodeDefinition({ name: "whole", tasks }).ok, "400 × 400 properties fit the default budget").toBe(true);
    const r = decodeDefinition({ name: "whole", tasks }, { limits: { maxCheckNodes: 50_000 } });
    expect(r.ok ? [] : r.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/together exceed 50000 schema nodes \(the checker's budget, docs\/limits\.md\)/),
    ]);
  });
});

describe("the decoder's bounds (docs/limits.md)", () => {
  const routing = (n: number) => ({ name: "many", tasks: Array.from({ length: n }, (_, i) => ({ id: `t${i}` })) });

  it("accepts the maximum task count and refuses one more, naming the limit", () => {
    const r = decodeDefinition(routing(4), { limits: { maxTasks: 3 } });
    expect(r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      "tasks: the definition has 4 tasks, more than the limit of 3 (docs/limits.md); split it into processes that call each other as children",
    ]);
    expect(decodeDefinition(routing(3), { limits: { maxTasks: 3 } }).ok).toBe(true);
  });

  it("refuses a definition larger than the size limit", () => {
    const r = decodeDefinition(routing(100), { limits: { maxBytes: 1000 } });
    expect(r.ok ? "" : r.problems[0].message).toMatch(
      /^the definition is about \d+ characters written as JSON, more than the limit of 1000/,
    );
  });

  it("refuses a code pattern longer than the limit, and more patterns per task than the limit", () => {
    const def = (code: unknown) => ({
      name: "p",
      tasks: [{ id: "a", action: { type: "fetch", url: "https://x.example" }, on_error: [{ code, goto: "end" }] }],
    });
    const long = decodeDefinition(def(`${"%a".repeat(200)}%`));
    expect(long.ok ? [] : long.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      "tasks[0].on_error[0].code: the code pattern is 401 characters long, more than the limit of 256 (docs/limits.md)",
    ]);
    const many = decodeDefinition(def(Array.from({ length: 101 }, (_, i) => `http.${400 + i}`)));
    expect(many.ok ? [] : many.problems.map((p) => p.path)).toEqual(["tasks[0].on_error"]);
  });
});

describe("the pattern-check bound (docs/limits.md)", () => {
  const child = {
    name: "kid",
    tasks: [
      {
        id: "w",
        action: { type: "external" },
        raises: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`code_${i}`, null])),
      },
    ],
  };

  it("refuses a definition whose patterns need more comparisons than the limit, once", () => {
    const tasks = Array.from({ length: 30 }, (_, i) => ({
      id: `t${i}`,
      action: { type: "child", name: "kid" },
      on_error: [{ code: Array.from({ length: 10 }, (_, k) => `code_${k}%`), goto: "end" }],
    }));
    const raises = (name: string) => (name === "kid" ? Object.keys(child.tasks[0].raises) : undefined);
    const ctx = { processExists: (n: string) => n === "kid", processRaises: raises };
    expect(decodeDefinition({ name: "parent", tasks }, ctx).ok, "30 × 10 patterns × 51 codes fit the default").toBe(
      true,
    );
    const r = decodeDefinition({ name: "parent", tasks }, { ...ctx, limits: { maxPatternChecks: 5000 } });
    expect(r.ok ? [] : r.problems.map((p) => p.message)).toEqual([
      "checking the definition's code patterns takes more than 5000 comparisons (the limit on pattern checks, docs/limits.md); use fewer or broader patterns",
    ]);
  });

  it("lists at most 20 of a child's codes in a problem", () => {
    const tasks = [{ id: "t", action: { type: "child", name: "kid" }, on_error: [{ code: "nope", goto: "end" }] }];
    const raises = (name: string) => (name === "kid" ? Object.keys(child.tasks[0].raises) : undefined);
    const r = decodeDefinition({ name: "parent", tasks }, { processExists: () => true, processRaises: raises });
    expect(r.ok ? "" : r.problems[0].message).toMatch(/\(they raise: code_0, code_1, .* and 31 more\)$/);
  });
});
