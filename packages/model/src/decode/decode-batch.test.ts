import { describe, expect, it } from "vitest";
import { expectProblem } from "../../test/helpers.js";
import { decodeBatch } from "./decode-batch.js";
import { decodeDefinition } from "./decode-definition.js";

describe("decodeBatch", () => {
  it("decodes every member", () => {
    const r = decodeBatch([
      { name: "a", tasks: [{ id: "t" }] },
      { name: "b", tasks: [{ id: "t" }] },
    ]);
    expect(r.ok && r.definitions.map((d) => d.name)).toEqual(["a", "b"]);
  });

  it("refuses a name given twice", () => {
    const r = decodeBatch([
      { name: "a", tasks: [{ id: "t" }] },
      { name: "a", tasks: [{ id: "u" }] },
    ]);
    expect(r.ok).toBe(false);
    if (!r.ok) expectProblem(r.problems, "name", "appears twice in the batch (definitions[0] and definitions[1])");
  });

  it("lets members name each other as children even when the registry does not know them", () => {
    const parent = { name: "parent", tasks: [{ id: "c", action: { type: "child", name: "kid" } }] };
    const kid = { name: "kid", tasks: [{ id: "t" }] };
    expect(decodeBatch([parent, kid], { processExists: () => false }).ok).toBe(true);
    expect(decodeDefinition(parent, { processExists: () => false }).ok).toBe(false);
  });

  it("checks a parent's on_error against what a child of the same batch raises", () => {
    const parent = {
      name: "parent",
      tasks: [{ id: "c", action: { type: "child", name: "kid" }, on_error: [{ code: "kid_failed", goto: "end" }] }],
    };
    const kid = { name: "kid", tasks: [{ id: "t", switch: [{ raise: { code: "kid_fails", message: "x" } }] }] };
    const r = decodeBatch([parent, kid], { processExists: () => false });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expectProblem(
        r.problems,
        "tasks[0].on_error[0].code[0]",
        'no child of this task can raise "kid_failed" (they raise: kid_fails, output.invalid)',
      );
  });

  it("prefixes problems of unnamed members with their index", () => {
    const r = decodeBatch([{ name: "a", tasks: [{ id: "t" }] }, { tasks: [{ id: "t" }] }]);
    expect(r.ok).toBe(false);
    if (!r.ok) expectProblem(r.problems, "definitions[1]", "needs a name");
  });
});
