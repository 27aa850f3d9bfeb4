import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../canonical.js";
import { inferSchemas } from "../infer.js";
import { decodeDefinition } from "./decode-definition.js";

const dir = new URL("../fixtures/", import.meta.url);
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => JSON.parse(readFileSync(new URL(f, dir), "utf8")) as unknown);

/** A small deterministic PRNG (mulberry32) so failures reproduce. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  "",
  "$:",
  "${",
  "$: (",
  "end",
  "next",
  "$nope",
  [],
  {},
  [null],
  { type: "fetch" },
  "x".repeat(300),
];

function mutate(value: unknown, random: () => number): unknown {
  const copy = structuredClone(value);
  const nodes: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v))
      v.forEach((x, i) => {
        nodes.push({ parent: v, key: i });
        walk(x);
      });
    else if (v !== null && typeof v === "object")
      for (const [k, x] of Object.entries(v)) {
        nodes.push({ parent: v as Record<string, unknown>, key: k });
        walk(x);
      }
  };
  walk(copy);
  const edits = 1 + Math.floor(random() * 3);
  for (let e = 0; e < edits && nodes.length > 0; e++) {
    const { parent, key } = nodes[Math.floor(random() * nodes.length)];
    const r = random();
    if (r < 0.6)
      (parent as Record<string | number, unknown>)[key] = ODD_VALUES[Math.floor(random() * ODD_VALUES.length)];
    else if (r < 0.8 && !Array.isArray(parent)) delete (parent as Record<string, unknown>)[key as string];
    else if (!Array.isArray(parent)) (parent as Record<string, unknown>).surprise = 1;
  }
  return copy;
}

describe("decoding malformed definitions", () => {
  it("never throws, and every problem has a path and a message", () => {
    const random = prng(20260401);
    let refused = 0;
    for (let i = 0; i < 600; i++) {
      const raw = mutate(fixtures[i % fixtures.length], random);
      const r = (() => {
        try {
          return decodeDefinition(raw);
        } catch (e) {
          throw new Error(`decodeDefinition threw on ${JSON.stringify(raw)}: ${(e as Error).stack}`);
        }
      })();
      if (r.ok) {
        expect(() => inferSchemas(r.definition, 1)).not.toThrow();
        expect(() => canonicalJson(r.definition)).not.toThrow();
        continue;
      }
      refused++;
      const rawDef = raw as { name?: unknown; tasks?: unknown };
      for (const p of r.problems) {
        expect(typeof p.path).toBe("string");
        expect(p.message.length).toBeGreaterThan(0);
        if (typeof rawDef.name === "string")
          expect(p.process, "every problem names the process when it is known").toBe(rawDef.name);
        const m = /^tasks\[(\d+)\]/.exec(p.path);
        const rawTask =
          m !== null && Array.isArray(rawDef.tasks)
            ? (rawDef.tasks[Number(m[1])] as { id?: unknown } | undefined)
            : undefined;
        if (rawTask !== null && typeof rawTask === "object" && typeof rawTask.id === "string")
          expect(p.task, `a problem inside a task names it: ${p.path}: ${p.message}`).toBe(rawTask.id);
      }
    }
    expect(refused, "most mutations should be refused").toBeGreaterThan(300);
  });
});

describe("absurdly deep definitions", () => {
  it("are refused with a problem instead of a crash", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const r = decodeDefinition({ name: "p", tasks: [{ id: "a", output: deep }] });
    expect(r).toEqual({
      ok: false,
      problems: [
        {
          process: "p",
          // The first value on level 65: the definition, tasks, the task, output, then 61 arrays in.
          path: `tasks[0].output${"[0]".repeat(61)}`,
          message:
            "the definition is nested more than 64 levels deep here (the limit on definition nesting, docs/limits.md)",
        },
      ],
    });
  });
});
