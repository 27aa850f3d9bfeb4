import { parseJson } from "@baton/expr";
import { describe, expect, it } from "vitest";
import { decoded, expectProblem, fetchDef, problemsOf } from "../../test/helpers.js";

const withRules = (on_error: unknown, task: Record<string, unknown> = {}) => ({
  name: "p",
  tasks: [{ id: "call", action: { type: "fetch", url: "https://x" }, on_error, ...task }, { id: "recover" }],
});
const rules = (on_error: unknown, task: Record<string, unknown> = {}) =>
  decoded(withRules(on_error, task)).tasks[0].on_error;
const E = "tasks[0].on_error";
const DEFAULT_RETRY = { retries: 3, delay: "1s", factor: 2, max_delay: "5m" };

describe("on_error code patterns", () => {
  it("turns a single code into an array", () => {
    expect(rules([{ code: "http.5%", goto: "$recover" }])).toEqual([{ code: ["http.5%"], goto: "$recover" }]);
  });

  it("keeps arrays of patterns", () => {
    expect(rules([{ code: ["http.500", "pre.%"], goto: "end" }])).toEqual([
      { code: ["http.500", "pre.%"], goto: "end" },
    ]);
  });

  it("refuses bad patterns and empty lists", () => {
    expectProblem(problemsOf(withRules([{ code: "HTTP.500" }])), `${E}[0].code`, "not a code pattern");
    expectProblem(problemsOf(withRules([{ code: [] }])), `${E}[0].code`, "non-empty array");
    expectProblem(
      problemsOf(withRules([{ code: ["http.500", 3] }])),
      `${E}[0].code[1]`,
      "expected a code pattern, got a number",
    );
  });

  it("refuses engine.* patterns: they are never caught", () => {
    expectProblem(
      problemsOf(withRules([{ code: "engine.expression", goto: "end" }])),
      `${E}[0].code`,
      "engine.* codes are never caught",
    );
  });

  it("requires the catch-all to be last", () => {
    expectProblem(
      problemsOf(withRules([{ goto: "end" }, { code: "http.500", goto: "end" }])),
      `${E}[0]`,
      "must be the last",
    );
  });

  it("refuses a pattern an earlier rule already catches", () => {
    expectProblem(
      problemsOf(
        withRules([
          { code: "http.5%", retry: 2 },
          { code: "http.503", goto: "end" },
        ]),
      ),
      `${E}[1].code[0]`,
      "on_error[0] already catches",
    );
    expectProblem(problemsOf(withRules([{ code: "%" }, { code: ["pre.%"] }])), `${E}[1].code[0]`, "can never match");
    expectProblem(
      problemsOf(withRules([{ code: ["http.404", "http.%"] }, { code: "http.4%" }])),
      `${E}[1].code[0]`,
      "can never match",
    );
  });

  it("accepts a narrower pattern before a wider one", () => {
    decoded(
      withRules([
        { code: "http.503", goto: "end" },
        { code: "http.5%", retry: 2 },
        { code: "http.%" },
        { goto: "$recover" },
      ]),
    );
    decoded(withRules([{ code: "http.5%" }, { code: "http.%" }]));
  });

  it("refuses unknown fields with a suggestion", () => {
    expectProblem(
      problemsOf(withRules([{ code: "http.500", retires: 2 }])),
      `${E}[0]`,
      'unknown field "retires" (did you mean "retries"?)',
    );
  });

  it("refuses a non-array", () => {
    expectProblem(problemsOf(withRules({ code: "http.500" })), E, "expected an array of rules");
  });
});

describe("on_error outcomes", () => {
  it("allows at most one of goto, raise, panic", () => {
    expectProblem(
      problemsOf(withRules([{ goto: "end", panic: { code: "http.500", message: "m" } }])),
      `${E}[0]`,
      "only one of goto, raise, panic",
    );
  });

  it("accepts a rule with no outcome (fail after retries)", () => {
    expect(rules([{ code: "http.404" }])).toEqual([{ code: ["http.404"] }]);
  });

  it('refuses goto "next"', () => {
    expectProblem(problemsOf(withRules([{ goto: "next" }])), `${E}[0].goto`, 'goto "next" is not allowed in on_error');
  });

  it("refuses unknown goto targets", () => {
    expectProblem(problemsOf(withRules([{ goto: "$nope" }])), `${E}[0].goto`, "names no task");
  });

  it("keeps raise and panic", () => {
    expect(
      rules([
        { code: "http.402", raise: { code: "payment_required", message: "pay" } },
        { panic: { code: "broken", message: "b" } },
      ]),
    ).toEqual([
      { code: ["http.402"], raise: { code: "payment_required", message: "pay" } },
      { panic: { code: "broken", message: "b" } },
    ]);
  });

  it("drops not_reached: false and keeps true", () => {
    expect(rules([{ code: "http.500", not_reached: false }])[0].not_reached).toBeUndefined();
    expect(rules([{ code: "http.500", not_reached: true }])[0].not_reached).toBe(true);
    expectProblem(
      problemsOf(withRules([{ code: "http.500", not_reached: 1 }])),
      `${E}[0].not_reached`,
      "expected true or false",
    );
  });
});

describe("retry", () => {
  it("expands retry: N, retries: N and the object form to the same canonical policy", () => {
    expect(rules([{ code: "pre.%", retry: 3 }])[0].retry).toEqual(DEFAULT_RETRY);
    expect(rules([{ code: "pre.%", retries: 3 }])[0].retry).toEqual(DEFAULT_RETRY);
    expect(rules([{ code: "pre.%", retry: { retries: 3 } }])[0].retry).toEqual(DEFAULT_RETRY);
  });

  it("keeps given delay, factor and max_delay; numbers of ms become strings", () => {
    expect(
      rules([{ code: "http.500", retry: { retries: 2, delay: 500, factor: 1.5, max_delay: "1m" } }])[0].retry,
    ).toEqual({ retries: 2, delay: "500ms", factor: 1.5, max_delay: "1m" });
  });

  it("defaults max_delay to the larger of 5 minutes and delay", () => {
    expect(rules([{ code: "http.500", retry: { retries: 1, delay: "10m" } }])[0].retry?.max_delay).toBe("10m");
  });

  it("refuses bad retries, delays and factors", () => {
    expectProblem(problemsOf(withRules([{ code: "http.500", retry: -1 }])), `${E}[0].retry`, "non-negative integer");
    expectProblem(problemsOf(withRules([{ code: "http.500", retry: 1.5 }])), `${E}[0].retry`, "non-negative integer");
    expectProblem(
      problemsOf(withRules([{ code: "http.500", retry: { retries: "2" } }])),
      `${E}[0].retry.retries`,
      "expected a non-negative integer, got a string",
    );
    expectProblem(
      problemsOf(withRules([{ code: "http.500", retry: { retries: 2, delay: "soon" } }])),
      `${E}[0].retry.delay`,
      'invalid duration "soon"',
    );
    expectProblem(
      problemsOf(withRules([{ code: "http.500", retry: { retries: 2, delay: "$: input.d" } }])),
      `${E}[0].retry.delay`,
      "cannot be an expression",
    );
    expectProblem(
      problemsOf(withRules([{ code: "http.500", retry: { retries: 2, factor: 0.5 } }])),
      `${E}[0].retry.factor`,
      "≥ 1",
    );
    expectProblem(
      problemsOf(withRules([{ code: "http.500", retry: { retries: 2, backoff: 2 } }])),
      `${E}[0].retry`,
      'unknown field "backoff"',
    );
    expectProblem(
      problemsOf(withRules([{ code: "http.500", retry: 1, retries: 1 }])),
      `${E}[0]`,
      "either retry or retries",
    );
  });
});

describe("only_once", () => {
  const once = (on_error: unknown) => withRules(on_error, { only_once: true });

  it("allows retries on pre.* patterns", () => {
    decoded(
      once([
        { code: ["pre.error"], retry: 3 },
        { code: "pre.%", retry: 1 },
      ]),
    );
  });

  it("allows retries on an exact code with not_reached: true", () => {
    decoded(once([{ code: "http.429", retry: 3, not_reached: true }]));
  });

  it("allows rules without retries", () => {
    decoded(once([{ code: "http.timeout", goto: "$recover" }, { goto: "end" }]));
    decoded(once([{ code: "%", retry: 0, goto: "end" }]));
  });

  it("refuses a catch-all with retries", () => {
    expectProblem(problemsOf(once([{ retry: 2 }])), `${E}[0]`, "cannot retry on a catch-all rule");
  });

  it.each(["only_once.interrupted", "http.timeout", "http.disconnected", "external.timeout"])(
    "refuses any retry on %s, even with not_reached",
    (code) => {
      expectProblem(
        problemsOf(once([{ code, retry: 1, not_reached: true }])),
        `${E}[0].code[0]`,
        `cannot retry on "${code}"`,
      );
    },
  );

  it("refuses wildcards that would match a never-retry code", () => {
    expectProblem(
      problemsOf(once([{ code: "http.%", retry: 1 }])),
      `${E}[0].code[0]`,
      "it matches http.timeout, http.disconnected",
    );
    expectProblem(problemsOf(once([{ code: "%", retry: 1 }])), `${E}[0].code[0]`, "only_once.interrupted");
  });

  it("refuses other retries without pre. or not_reached", () => {
    expectProblem(
      problemsOf(once([{ code: "http.503", retry: 1 }])),
      `${E}[0].code[0]`,
      'retry on "http.503" only with a "pre." pattern',
    );
    expectProblem(
      problemsOf(once([{ code: "http.5%", retry: 1, not_reached: true }])),
      `${E}[0].code[0]`,
      "exact code",
    );
  });

  it("does not apply to tasks without only_once", () => {
    decoded(withRules([{ retry: 5 }]));
    decoded(fetchDef({}, { on_error: [{ code: "http.timeout", retry: 2 }] }));
  });
});

describe("codes a task can never see", () => {
  it("refuses exact codes a fetch cannot fail with", () => {
    expectProblem(
      problemsOf(withRules([{ code: "http.5000", goto: "end" }])),
      `${E}[0].code[0]`,
      '"http.5000" can never be caught here: a fetch task fails only with http.<status>',
    );
    expectProblem(
      problemsOf(withRules([{ code: "card_declined", goto: "end" }])),
      `${E}[0].code[0]`,
      "a fetch task fails only with",
    );
    expectProblem(
      problemsOf(withRules([{ code: "external.timeout", goto: "end" }])),
      `${E}[0].code[0]`,
      "can never be caught",
    );
  });

  it("accepts every fetch code and wildcards", () => {
    decoded(
      withRules([
        {
          code: [
            "http.418",
            "pre.error",
            "pre.timeout",
            "http.timeout",
            "http.disconnected",
            "output.parse",
            "output.too_large",
            "output.invalid",
          ],
        },
        { code: "zz%" },
      ]),
    );
  });

  it("refuses only_once.interrupted on a task that is not only_once", () => {
    expectProblem(
      problemsOf(withRules([{ code: "only_once.interrupted", goto: "end" }])),
      `${E}[0].code[0]`,
      "only an only_once task can be interrupted",
    );
    decoded(withRules([{ code: "only_once.interrupted", goto: "end" }], { only_once: true }));
  });

  it("accepts on an external task only external.timeout and its raises", () => {
    const ext = (on_error: unknown, raises?: unknown) => ({
      name: "p",
      tasks: [{ id: "w", action: { type: "external" }, raises, on_error }],
    });
    decoded(ext([{ code: ["external.timeout", "declined"], goto: "end" }], { declined: null }));
    expectProblem(
      problemsOf(ext([{ code: "declined", goto: "end" }])),
      `${E}[0].code[0]`,
      "external.timeout or a code of its raises (it declares none)",
    );
    expectProblem(
      problemsOf(ext([{ code: "http.500", goto: "end" }], { declined: null })),
      `${E}[0].code[0]`,
      "(declined)",
    );
  });
});

describe("numbers too large for a float64", () => {
  it("names the digits in the message", () => {
    const raw = parseJson(
      '{"name":"p","tasks":[{"id":"a","action":{"type":"fetch","url":"https://x"},"on_error":[{"code":"http.500","retry":99999999999999999999}]}]}',
    );
    expectProblem(problemsOf(raw), `${E}[0].retry`, "got the number 99999999999999999999");
  });
});
