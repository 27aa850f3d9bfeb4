import { describe, expect, it } from "vitest";
import { decoded, expectProblem, problemsOf } from "../../test/helpers.js";
import { isValidTimeZone } from "./decode-timing.js";

const ext = (action: Record<string, unknown>, task: Record<string, unknown> = {}) => ({
  name: "p",
  tasks: [{ id: "wait", action: { type: "external", ...action }, ...task }],
});
const delay = (action: Record<string, unknown>) => ({
  name: "p",
  tasks: [{ id: "nap", action: { type: "delay", ...action } }],
});
const A = "tasks[0].action";

describe("external", () => {
  it("decodes input, result_schema and timeout", () => {
    const a = decoded(ext({ input: { order: "$: outputs" }, result_schema: { type: "object" }, timeout: "1d" }))
      .tasks[0].action;
    expect(a).toEqual({
      type: "external",
      input: { order: "$: outputs" },
      result_schema: { type: "object" },
      timeout: { for: "1d" },
    });
  });

  it("accepts a task-level until timeout with tz", () => {
    const a = decoded(ext({}, { timeout: { until: "17:00", tz: "Europe/Paris" } })).tasks[0].action;
    expect(a).toEqual({ type: "external", timeout: { until: "17:00", tz: "Europe/Paris" } });
  });

  it("accepts RFC 3339 times and $: expressions", () => {
    decoded(ext({ timeout: { until: "2026-03-01T09:00:00+01:00" } }));
    decoded(ext({ timeout: { until: "2026-03-01T09:00:00.5Z" } }));
    decoded(ext({ timeout: { for: "$: 1000 * 60" } }));
  });

  it("refuses bad times and zones", () => {
    expectProblem(problemsOf(ext({ timeout: { until: "tomorrow" } })), `${A}.timeout.until`, 'invalid time "tomorrow"');
    expectProblem(
      problemsOf(ext({ timeout: { until: "2026-02-30T09:00", tz: "UTC" } })),
      `${A}.timeout.until`,
      "not a valid date",
    );
    expectProblem(
      problemsOf(ext({ timeout: { until: "25:00", tz: "UTC" } })),
      `${A}.timeout.until`,
      "not a valid wall-clock time",
    );
    expectProblem(problemsOf(ext({ timeout: { until: "09:00" } })), `${A}.timeout.until`, "needs tz");
    expectProblem(
      problemsOf(ext({ timeout: { until: "09:00", tz: "Mars/Base" } })),
      `${A}.timeout.tz`,
      'unknown time zone "Mars/Base"',
    );
    expectProblem(
      problemsOf(ext({ timeout: { until: "2026-01-01T00:00:00Z", tz: "UTC" } })),
      `${A}.timeout.tz`,
      "already has an offset",
    );
    expectProblem(
      problemsOf(ext({ timeout: { for: "1s", until: "2026-01-01T00:00:00Z" } })),
      `${A}.timeout`,
      "either for or until",
    );
    expectProblem(
      problemsOf(ext({ timeout: { for: "1s", tz: "UTC" } })),
      `${A}.timeout.tz`,
      "tz applies only to until",
    );
  });

  it("refuses fields of other actions", () => {
    expectProblem(problemsOf(ext({ url: "https://x" })), A, 'unknown field "url"');
  });

  it("checks result_schema", () => {
    expectProblem(problemsOf(ext({ result_schema: { allOf: [] } })), `${A}.result_schema`, 'unknown field "allOf"');
  });
});

describe("delay", () => {
  it("takes for or until", () => {
    expect(decoded(delay({ for: "2h30m" })).tasks[0].action).toEqual({ type: "delay", for: "2h30m" });
    expect(decoded(delay({ for: 250 })).tasks[0].action).toEqual({ type: "delay", for: 250 });
    expect(decoded(delay({ until: "2026-12-24T18:00", tz: "America/New_York" })).tasks[0].action).toEqual({
      type: "delay",
      until: "2026-12-24T18:00",
      tz: "America/New_York",
    });
  });

  it("needs exactly one of for and until", () => {
    expectProblem(problemsOf(delay({})), A, "needs for");
    expectProblem(problemsOf(delay({ for: "1s", until: "2026-01-01T00:00:00Z" })), A, "either for or until");
  });

  it("checks durations, including $: expressions of numbers", () => {
    expectProblem(problemsOf(delay({ for: "1 hour" })), `${A}.for`, 'invalid duration "1 hour"');
    decoded(delay({ for: "$: 5 * 1000" }));
    expectProblem(problemsOf(delay({ for: "$: 'soon'" })), `${A}.for`, "expected a number expression, got string");
  });
});

describe("isValidTimeZone", () => {
  it("knows IANA names", () => {
    expect(isValidTimeZone("Europe/Paris")).toBe(true);
    expect(isValidTimeZone("UTC")).toBe(true);
    expect(isValidTimeZone("Nowhere/Town")).toBe(false);
  });
});
