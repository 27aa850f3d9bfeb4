import { describe, expect, it } from "vitest";
import { decodeDefinition } from "../decode/decode-definition.js";

const base = (extra: Record<string, unknown>, task: Record<string, unknown> = {}) => ({
  name: "p",
  input_schema: { type: "object", properties: { customer: { type: "string" } }, required: ["customer"] },
  tasks: [{ id: "call", action: { type: "fetch", url: "https://x.test" }, ...task }],
  ...extra,
});

function problems(raw: unknown): string[] {
  const r = decodeDefinition(raw);
  return r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`);
}

describe("flow control fields", () => {
  it("keeps a process concurrency and a task's concurrency and rate_limit in the canonical form", () => {
    const r = decodeDefinition(
      base(
        { concurrency: { key: "$: input.customer", limit: 1 } },
        { concurrency: { limit: 20 }, rate_limit: { key: "partner", limit: 100, per: "1s" } },
      ),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.definition.concurrency).toEqual({ key: "$: input.customer", limit: 1 });
    expect(r.definition.tasks[0].concurrency).toEqual({ limit: 20 });
    expect(r.definition.tasks[0].rate_limit).toEqual({ key: "partner", limit: 100, per: "1s" });
  });

  it("refuses a limit out of range, a missing per and a period past a day, naming each path", () => {
    expect(problems(base({ concurrency: { limit: 0 } }))).toEqual([
      "concurrency.limit: expected a whole number from 1 to 10000 (--limit-flow-max, docs/limits.md), got 0",
    ]);
    expect(problems(base({}, { rate_limit: { limit: 5 } }))).toEqual([
      'tasks[0].rate_limit: a rate_limit needs per (a duration like "1s")',
    ]);
    expect(problems(base({}, { rate_limit: { limit: 5, per: "2d" } }))).toEqual([
      'tasks[0].rate_limit.per: expected a period from 1ms to 1d, got "2d"',
    ]);
    expect(problems(base({}, { concurrency: { limit: 2, keys: "x" } }))[0]).toMatch(/tasks\[0\]\.concurrency/);
  });

  it("type-checks the keys: a process key sees only input and config, a task key what its action sees", () => {
    expect(problems(base({ concurrency: { key: "$: input.nope", limit: 1 } }))[0]).toMatch(/^concurrency\.key: .*nope/);
    expect(problems(base({ concurrency: { key: "$: outputs.call", limit: 1 } }))[0]).toMatch(
      /^concurrency\.key: .*before the first task/,
    );
    expect(problems(base({}, { concurrency: { key: "$: input.region", limit: 1 } }))[0]).toMatch(
      /^tasks\[0\]\.concurrency\.key: .*region/,
    );
    expect(problems(base({}, { concurrency: { key: "$: input.customer", limit: 1 } }))).toEqual([]);
  });

  it("refuses flow control on a task without an action", () => {
    expect(
      problems({
        name: "p",
        tasks: [
          { id: "r", concurrency: { limit: 1 } },
          { id: "s", action: { type: "delay", for: "1s" } },
        ],
      }),
    ).toEqual(["tasks[0].concurrency: concurrency needs an action to hold back (a routing task runs inline)"]);
  });
});
