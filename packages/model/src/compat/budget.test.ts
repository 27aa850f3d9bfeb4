// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation
// The compatibility check's work bound (docs/limits.md, --limit-compat-steps): large versions
// that share their flow compare without replaying it; ones that differ widely stop at the bound.
import { describe, expect, it } from "vitest";
import { decoded } from "../../test/helpers.js";
import { CompatTooLarge } from "./budget.js";
import { compareDefinitions, upgradeBlockers } from "./compare.js";

/** n chained fetch tasks, each reading the previous output, each routing 4xx errors to the last. */
function chain(n: number, reversed = false) {
  const tasks = Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    action: { type: "fetch", url: `https://svc.example.com/${i}?prev=\${outputs.t${Math.max(0, i - 1)}.n ?? 0}` },
    output: { n: i > 0 ? `$: outputs.t${i - 1}.n + 1` : 0 },
    on_error: i + 1 < n ? [{ code: "http.4%", goto: `$t${n - 1}` }] : [],
  }));
  if (reversed) tasks.reverse();
  return decoded({ name: "chain", tasks });
}

describe("the compatibility check's work bound", () => {
  it("compares a 3,000-task version with itself within the default bound, finding nothing to gate", () => {
    const def = chain(3000);
    const r = compareDefinitions(def, def, 1, 2);
    expect(r.upgrade.compatible).toBe(true);
    expect(r.issues.filter((i) => i.gating)).toEqual([]);
  });

  it("throws CompatTooLarge naming the bound when two versions differ too widely to compare within it", () => {
    const from = chain(200, true);
    const to = chain(200);
    expect(() => compareDefinitions(from, to, 1, 2, 10_000)).toThrow(CompatTooLarge);
    expect(() => upgradeBlockers(from, to, 1, 2, ["t5"], 10_000)).toThrow(
      "comparing these two versions takes more than 10000 steps",
    );
  });

  it("still finds an output assumed set that a sitting instance may lack, read with brackets", () => {
    const from = decoded({
      name: "p",
      tasks: [
        { id: "a", action: { type: "external" } },
        { id: "c", action: { type: "external" } },
      ],
    });
    const to = decoded({
      name: "p",
      tasks: [
        { id: "a", action: { type: "external" } },
        { id: "b", output: { n: 1 } },
        { id: "c", action: { type: "external", input: { n: "$: outputs['b'].n" } } },
      ],
    });
    expect(upgradeBlockers(from, to, 1, 2, ["a"])).toEqual([]);
    expect(upgradeBlockers(from, to, 1, 2, ["c"])).toHaveLength(1);
  });
});
