import { expect, it } from "vitest";
import { defsCycles, describeDefsCycle } from "./defs-cycles.js";

const ref = (name: string) => ({ $ref: `#/$defs/${name}` });

it("finds each cycle through $ref, anyOf and oneOf, named from its first entry back to it", () => {
  expect(defsCycles({ a: ref("a") })).toEqual([["a", "a"]]);
  expect(defsCycles({ a: ref("b"), b: ref("a") })).toEqual([["a", "b", "a"]]);
  expect(defsCycles({ a: { anyOf: [{ type: "string" }, ref("a")] } })).toEqual([["a", "a"]]);
  expect(defsCycles({ a: { oneOf: [ref("b")] }, b: ref("b"), c: ref("a") })).toEqual([["b", "b"]]);
  expect(describeDefsCycle(["a", "b", "a"])).toBe(
    '$defs "a" → "b" → "a" refer to each other through $ref, anyOf or oneOf alone, without a property or item in between, so they describe no value of their own',
  );
});

it("finds none in recursion through a property or an item, nor without $defs", () => {
  expect(defsCycles({ tree: { type: "object", properties: { kids: { type: "array", items: ref("tree") } } } })).toEqual(
    [],
  );
  expect(defsCycles({ a: ref("b"), b: { type: "string" } })).toEqual([]);
  expect(defsCycles(undefined)).toEqual([]);
});

it("walks a chain of 10,000 $defs without overflowing the stack", () => {
  const defs = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`d${i}`, ref(`d${(i + 1) % 10_000}`)]));
  expect(defsCycles(defs)).toHaveLength(1);
  const [cycle] = defsCycles(defs);
  expect(cycle).toHaveLength(10_001);
  expect(describeDefsCycle(cycle!)).toMatch(
    /^\$defs "d0" → "d1" → "d2" → "d3" → "d4" → "d5" → … \(10000 entries in all\) → "d0" refer/,
  );
});
