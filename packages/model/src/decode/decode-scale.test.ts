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
