import { describe, expect, it } from "vitest";
import { decoded, expectProblem, problemsOf } from "../../test/helpers.js";

const two = (sw: unknown, extra: Record<string, unknown> = {}) => ({
  name: "p",
  tasks: [{ id: "a", output: { ok: true }, switch: sw, ...extra }, { id: "b" }],
});
const S = "tasks[0].switch";

describe("switch shorthands", () => {
  it('expands "next" and absent to []', () => {
    expect(decoded(two("next")).tasks[0].switch).toEqual([]);
    expect(decoded(two(undefined)).tasks[0].switch).toEqual([]);
    expect(decoded(two([])).tasks[0].switch).toEqual([]);
  });

  it('expands "end" and "$id" to one goto case', () => {
    expect(decoded({ name: "p", tasks: [{ id: "a", switch: "end" }] }).tasks[0].switch).toEqual([{ goto: "end" }]);
    expect(decoded({ name: "p", tasks: [{ id: "a", switch: "$b" }, { id: "b" }] }).tasks[0].switch).toEqual([
      { goto: "$b" },
    ]);
  });

  it('refuses "next" on the last task', () => {
    expectProblem(problemsOf({ name: "p", tasks: [{ id: "a", switch: "next" }] }), S, 'goto "next" on the last task');
    expectProblem(
      problemsOf({ name: "p", tasks: [{ id: "a", switch: [{ goto: "next" }] }] }),
      `${S}[0].goto`,
      "on the last task",
    );
  });

  it("refuses unknown targets and bare ids with a hint", () => {
    expectProblem(problemsOf(two("$zz")), S, 'goto "$zz" names no task (known: a, b)');
    expectProblem(problemsOf(two("b")), S, 'did you mean "$b"?');
    expectProblem(problemsOf(two(3)), S, "expected");
  });
});

describe("switch cases", () => {
  it("keeps cases in order", () => {
    const sw = [
      { case: "self.output.ok", goto: "$b" },
      { case: "!self.output.ok", raise: { code: "not_ok", message: "not ok" } },
      { panic: { code: "weird", message: "?" } },
    ];
    expect(decoded(two(sw)).tasks[0].switch).toEqual(sw);
  });

  it("refuses a raise or panic message written as an expression or a template: it would be carried verbatim", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation
    for (const message of ["$: 'order ' + input.id", "order ${ input.id } failed"])
      expectProblem(
        problemsOf(two([{ raise: { code: "x", message } }])),
        `${S}[0].raise.message`,
        "a raise or panic message is fixed text, never evaluated",
      );
    const problems = problemsOf(two([{ panic: { code: "x", message: "costs $5" } }]));
    expect(
      problems.filter((p) => p.path.endsWith(".message")),
      "a dollar sign alone is text",
    ).toEqual([]);
  });

  it("needs exactly one of goto, raise, panic", () => {
    expectProblem(problemsOf(two([{ case: "true" }])), `${S}[0]`, "needs one of goto, raise or panic");
    expectProblem(
      problemsOf(two([{ goto: "end", raise: { code: "x", message: "m" } }])),
      `${S}[0]`,
      "only one of goto, raise, panic (got goto and raise)",
    );
  });

  it("requires the default case to be last", () => {
    expectProblem(
      problemsOf(two([{ goto: "end" }, { case: "true", goto: "$b" }])),
      `${S}[0]`,
      "default case (without case) must be the last",
    );
  });

  it("refuses unknown fields in a case", () => {
    expectProblem(problemsOf(two([{ when: "true", goto: "end" }])), `${S}[0]`, 'unknown field "when"');
  });

  it("refuses an empty or non-string case", () => {
    expectProblem(problemsOf(two([{ case: "", goto: "end" }])), `${S}[0].case`, "got an empty string");
    expectProblem(problemsOf(two([{ case: true, goto: "end" }])), `${S}[0].case`, "got a boolean");
  });

  it("checks authored codes and messages", () => {
    expectProblem(
      problemsOf(two([{ raise: { code: "http.500", message: "x" } }])),
      `${S}[0].raise.code`,
      "dotted codes are reserved for engine codes",
    );
    expectProblem(
      problemsOf(two([{ raise: { code: "Bad", message: "x" } }])),
      `${S}[0].raise.code`,
      "not lower_snake_case",
    );
    expectProblem(problemsOf(two([{ panic: { code: "bad" } }])), `${S}[0].panic`, "needs message");
    expectProblem(problemsOf(two([{ panic: { message: "m" } }])), `${S}[0].panic`, "needs code");
    expectProblem(
      problemsOf(two([{ panic: { code: "bad", message: "m", data: 1 } }])),
      `${S}[0].panic`,
      'unknown field "data"',
    );
  });

  it("requires case to be a boolean expression", () => {
    expectProblem(
      problemsOf(two([{ case: "self.output", goto: "end" }])),
      `${S}[0].case`,
      "case must be a boolean expression",
    );
  });

  it("reports a case syntax error with a caret", () => {
    const p = expectProblem(problemsOf(two([{ case: "self.output.ok &&", goto: "end" }])), `${S}[0].case`, "expected");
    expect(p.message).toContain("^");
  });

  it("refuses $: in a case: it is a bare expression", () => {
    const problems = problemsOf(two([{ case: "$: self.output.ok", goto: "end" }]));
    expectProblem(problems, `${S}[0].case`, 'case is a bare expression: drop the "$:"');
    expect(problems, "one clear problem, not a second syntax error").toHaveLength(1);
  });
});
