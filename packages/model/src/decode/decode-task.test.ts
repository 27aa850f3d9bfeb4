import { describe, expect, it } from "vitest";
import { decoded, expectProblem, fetchDef, problemsOf } from "../../test/helpers.js";

const one = (task: Record<string, unknown>) => ({ name: "p", tasks: [task] });

describe("task ids", () => {
  it.each(["a", "charge_card", "step-2", "_x", "A1"])("accepts %j", (id) => {
    expect(decoded(one({ id })).tasks[0].id).toBe(id);
  });

  it.each([
    ["end", "reserved"],
    ["next", "reserved"],
    ["1a", "must start with a letter"],
    ["a.b", "must start with a letter"],
    ["a b", "must start with a letter"],
    ["", "must start with a letter"],
  ])("refuses %j (%s)", (id, message) => {
    const p = expectProblem(problemsOf(one({ id })), "tasks[0].id", message);
    expect(p.task).toBe(id);
  });

  it("refuses duplicate ids, naming the first", () => {
    expectProblem(
      problemsOf({ name: "p", tasks: [{ id: "a" }, { id: "a" }] }),
      "tasks[1].id",
      'duplicate task id "a" (also tasks[0])',
    );
  });

  it("requires an id string", () => {
    expectProblem(problemsOf(one({})), "tasks[0]", "needs an id");
    expectProblem(problemsOf(one({ id: 3 })), "tasks[0].id", "expected a task id string, got a number");
  });

  it("refuses a task that is not an object", () => {
    expectProblem(problemsOf({ name: "p", tasks: ["a"] }), "tasks[0]", "expected a task object");
  });
});

describe("task fields", () => {
  it("refuses unknown fields", () => {
    expectProblem(problemsOf(one({ id: "a", descripton: "x" })), "tasks[0]", 'unknown field "descripton"');
  });

  it("keeps output as written", () => {
    expect(decoded(one({ id: "a", output: { n: 1, s: "lit" } })).tasks[0].output).toEqual({ n: 1, s: "lit" });
  });

  it("decodes raises: authored codes to a schema or null", () => {
    const def = decoded(
      one({
        id: "a",
        action: { type: "external" },
        raises: { declined: { type: "object", properties: { reason: { type: "string" } } }, gone: null },
      }),
    );
    expect(def.tasks[0].raises).toEqual({
      declined: { type: "object", properties: { reason: { type: "string" } } },
      gone: null,
    });
  });

  it("refuses a raises code with a dot, explaining dots are engine codes", () => {
    expectProblem(
      problemsOf(one({ id: "a", raises: { "card.declined": null } })),
      'tasks[0].raises["card.declined"]',
      "dotted codes are reserved for engine codes",
    );
    expectProblem(
      problemsOf(one({ id: "a", raises: { Declined: null } })),
      "tasks[0].raises.Declined",
      "not lower_snake_case",
    );
    expectProblem(
      problemsOf(one({ id: "a", raises: { x: { format: "y" } } })),
      "tasks[0].raises.x",
      'unknown field "format"',
    );
  });

  it("drops only_once: false and keeps true", () => {
    expect(decoded(fetchDef({}, { only_once: false })).tasks[0].only_once).toBeUndefined();
    expect(decoded(fetchDef({}, { only_once: true })).tasks[0].only_once).toBe(true);
    expectProblem(
      problemsOf(fetchDef({}, { only_once: "yes" })),
      "tasks[0].only_once",
      "expected true or false, got a string",
    );
    expectProblem(problemsOf(one({ id: "a", only_once: true })), "tasks[0].only_once", "needs an action");
  });

  it("refuses on_error on a task without action", () => {
    expectProblem(
      problemsOf(one({ id: "a", on_error: [{ goto: "end" }] })),
      "tasks[0].on_error",
      "never applies to a task without an action",
    );
  });
});

describe("task timeout", () => {
  it("moves a task-level timeout into the action, expanding the shorthand", () => {
    expect(decoded(fetchDef({}, { timeout: "5s" })).tasks[0].action).toMatchObject({ timeout: { for: "5s" } });
    expect(decoded(fetchDef({}, { timeout: { for: 2000 } })).tasks[0].action).toMatchObject({ timeout: { for: 2000 } });
  });

  it("accepts the timeout inside the action", () => {
    expect(decoded(fetchDef({ timeout: { for: "5s" } })).tasks[0].action).toMatchObject({ timeout: { for: "5s" } });
    expect(decoded(fetchDef({ timeout: "5s" })).tasks[0].action).toMatchObject({ timeout: { for: "5s" } });
  });

  it("refuses a timeout both on the task and in the action", () => {
    expectProblem(
      problemsOf(fetchDef({ timeout: "5s" }, { timeout: "6s" })),
      "tasks[0].timeout",
      "both on the task and inside the action",
    );
  });

  it("refuses a timeout on tasks other than fetch and external", () => {
    expectProblem(problemsOf(one({ id: "a", timeout: "5s" })), "tasks[0].timeout", "needs a fetch or external action");
    expectProblem(
      problemsOf(one({ id: "a", action: { type: "delay", for: "1s" }, timeout: "5s" })),
      "tasks[0].timeout",
      "only to fetch and external",
    );
  });

  it("refuses until on a fetch timeout", () => {
    expectProblem(
      problemsOf(fetchDef({}, { timeout: { until: "2026-01-01T00:00:00Z" } })),
      "tasks[0].timeout",
      "a fetch timeout accepts only for",
    );
  });

  it("refuses a bad duration", () => {
    expectProblem(
      problemsOf(fetchDef({}, { timeout: "5 minutes" })),
      "tasks[0].timeout",
      'invalid duration "5 minutes"',
    );
    expectProblem(problemsOf(fetchDef({}, { timeout: {} })), "tasks[0].timeout", "needs for");
  });
});
