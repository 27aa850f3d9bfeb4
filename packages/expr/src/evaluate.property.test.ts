import { describe, expect, it } from "vitest";
import { evaluate } from "./evaluate.js";
import { LosslessNumber, stringifyJson } from "./json.js";
import { add, multiply, subtract, toDecimal } from "./numbers.js";
import { parseExpression } from "./parser.js";

/** Deterministic PRNG (mulberry32) so failures reproduce. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Integer arithmetic with random spacing and parentheses; JS shares precedence and truncated % for these. */
function arithmetic(next: () => number, depth: number): string {
  if (depth === 0 || next() < 0.25) return String(Math.floor(next() * 19) - 9);
  const op = ["+", "-", "*", "%"][Math.floor(next() * 4)];
  const left = arithmetic(next, depth - 1);
  let right = arithmetic(next, depth - 1);
  if (op === "%" && (right === "0" || right === "-0")) right = "7";
  const text = `${left}${next() < 0.5 ? " " : ""}${op} ${right}`;
  return next() < 0.4 ? `(${text})` : next() < 0.1 ? `-(${text})` : text;
}

// biome-ignore lint/security/noGlobalEval: the reference evaluator for generated integer-only text
const referenceEval: (source: string) => unknown = globalThis.eval;

describe("evaluate agrees with reference arithmetic", () => {
  it("matches JavaScript on 500 random integer expressions (precedence, associativity, unary minus, %)", () => {
    const next = random(20260101);
    for (let i = 0; i < 500; i++) {
      const source = arithmetic(next, 4);
      let expected = Number(referenceEval(source));
      if (Number.isNaN(expected)) continue;
      if (Object.is(expected, -0)) expected = 0;
      expect(evaluate(parseExpression(source), {}), source).toBe(expected);
    }
  });

  it("keeps random 30-digit decimals exact through + - *", () => {
    const next = random(7);
    const digits = (n: number) => Array.from({ length: n }, () => Math.floor(next() * 10)).join("");
    for (let i = 0; i < 200; i++) {
      const a = new LosslessNumber(`${digits(15)}.${digits(15)}`.replace(/^0+(?=\d)/, ""));
      const b = new LosslessNumber(`-${digits(10)}.${digits(20)}`.replace(/^-0+(?=\d)/, "-"));
      const scope = { input: { a, b } };
      const sum = evaluate(parseExpression("input.a + input.b"), scope);
      expect(stringifyJson(sum)).toBe(stringifyJson(add(a, b)));
      expect(toDecimal(add(a, b)).eq(toDecimal(a).plus(toDecimal(b))), "add is exact").toBe(true);
      expect(
        stringifyJson(evaluate(parseExpression("input.a + input.b - input.b"), scope)),
        "(a + b) - b is a again",
      ).toBe(stringifyJson(subtract(add(a, b), b)));
      expect(toDecimal(subtract(add(a, b), b)).eq(toDecimal(a))).toBe(true);
      expect(toDecimal(multiply(a, b)).eq(toDecimal(a).times(toDecimal(b))), "multiply is exact").toBe(true);
    }
  });
});
