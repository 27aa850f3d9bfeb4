import { describe, expect, it } from "vitest";
import type { LoadedDefinition } from "./definition-files.js";
import { formatLocatedProblem, locateProblem, pathSegments } from "./problem-locations.js";

const loaded: LoadedDefinition[] = [
  { file: "a.yaml", source: "a.yaml", name: "a", definition: { name: "a", tasks: [{ id: "one" }] } },
  {
    file: "b.yaml",
    source: "b.yaml (document 2)",
    name: "b",
    definition: { name: "b", tasks: [{ id: "first" }, { id: "charge" }] },
  },
];

describe("pathSegments", () => {
  it.each([
    ["[1].tasks[0].on_error[2]", ["1", "tasks", "0", "on_error", "2"]],
    ["1.tasks.0", ["1", "tasks", "0"]],
    ["/1/tasks/0/a~1b", ["1", "tasks", "0", "a/b"]],
    ['definitions[1].tasks[0]["odd key"]', ["definitions", "1", "tasks", "0", "odd key"]],
  ])("splits %s", (path, segments) => {
    expect(pathSegments(path)).toEqual(segments);
  });
});

describe("locateProblem", () => {
  it("maps an index path of an array request to the file, process and task id", () => {
    const problem = locateProblem(
      loaded,
      { path: "[1].tasks[1].on_error[0]", message: 'unknown field "retires"' },
      true,
    );
    expect(formatLocatedProblem(problem)).toBe(
      'b.yaml (document 2), process b, task charge, field tasks[1].on_error[0]: unknown field "retires"',
    );
  });

  it("names the task once when the server's message opens with it", () => {
    const problem = locateProblem(loaded, { path: "[1].tasks[1]", message: 'task "charge": unknown field "x"' }, true);
    expect(formatLocatedProblem(problem)).toBe(
      'b.yaml (document 2), process b, task charge, field tasks[1]: unknown field "x"',
    );
  });

  it("understands the batch body's definitions[...] prefix and JSON pointers", () => {
    expect(locateProblem(loaded, { path: "definitions[0].tasks[0].id", message: "m" }, true)).toMatchObject({
      source: "a.yaml",
      task: "one",
      field: "tasks[0].id",
    });
    expect(locateProblem(loaded, { path: "/body/1/name", message: "m" }, true)).toMatchObject({
      process: "b",
      field: "name",
    });
  });

  it("takes paths of a single put as relative to that definition", () => {
    expect(locateProblem([loaded[1]], { path: "tasks[0].action", message: "m" }, false)).toMatchObject({
      source: "b.yaml (document 2)",
      task: "first",
    });
  });

  it("keeps the raw path when it cannot be located", () => {
    expect(formatLocatedProblem(locateProblem(loaded, { path: "channel", message: "required" }, true))).toBe(
      "field channel: required",
    );
  });
});
