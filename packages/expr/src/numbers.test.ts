import { describe, expect, it } from "vitest";
import { ExprLimitError, ExprRuntimeError } from "./errors.js";
import { isLosslessNumber, LosslessNumber, stringifyJson } from "./json.js";
import {
  add,
  EXACT_DIGITS,
  compareNumbers,
  divide,
  fromDecimal,
  isIntegerNumber,
  multiply,
  negate,
  numberFromText,
  numberText,
  remainder,
  remainderOfPowers,
  shortNumberText,
  subtract,
  toDecimal,
} from "./numbers.js";

const text = (n: number | LosslessNumber) => stringifyJson(n);

describe("exact decimal numbers", () => {
  it("adds decimal fractions exactly: 0.1 + 0.2 is 0.3", () => {
    expect(add(0.1, 0.2)).toBe(0.3);
    expect(subtract(0.3, 0.1)).toBe(0.2);
    expect(multiply(1.1, 1.1)).toBe(1.21);
  });

  it("keeps integers beyond 2^53 exact as LosslessNumber", () => {
    const sum = add(new LosslessNumber("12345678901234567890"), 1);
    expect(isLosslessNumber(sum)).toBe(true);
    expect(text(sum)).toBe("12345678901234567891");
    expect(text(multiply(new LosslessNumber("9007199254740993"), 2))).toBe("18014398509481986");
  });

  it("returns a plain number whenever a float64 round-trips the exact value", () => {
    expect(typeof add(new LosslessNumber("12345678901234567890"), new LosslessNumber("-12345678901234567889"))).toBe(
      "number",
    );
    expect(fromDecimal(toDecimal(2.5))).toBe(2.5);
  });

  it("keeps long decimal fractions exact", () => {
    expect(text(add(new LosslessNumber("0.10000000000000000000001"), 0.1))).toBe("0.20000000000000000000001");
  });

  it("falls back from the safe-integer fast path when the result would overflow", () => {
    expect(text(add(Number.MAX_SAFE_INTEGER, 2))).toBe("9007199254740993");
    expect(text(multiply(2 ** 40, 2 ** 40))).toBe("1208925819614629174706176");
  });

  it("divides exactly when the quotient terminates, else to 34 significant digits", () => {
    expect(divide(10, 4)).toBe(2.5);
    expect(divide(1, 1024)).toBe(0.0009765625);
    expect(text(divide(1, 3))).toBe("0.3333333333333333333333333333333333");
    expect(text(divide(2, 3)), "rounded half-even, not truncated").toBe("0.6666666666666666666666666666666667");
    expect(text(divide(new LosslessNumber("1234567890123456789012345678901234567891"), 2))).toBe(
      "617283945061728394506172839450617283945.5",
    );
    expect(text(divide(new LosslessNumber("100000000000000000000000000000000000000000"), 7))).toBe(
      "14285714285714285714285714285714290000000",
    );
  });

  it("does not mistake a rounded quotient for an exact one", () => {
    expect(text(divide(1, 7))).toBe("0.1428571428571428571428571428571429");
    expect(multiply(divide(1, 7), 7), "1/7 is rounded, so times 7 is not exactly 1").not.toBe(1);
  });

  it("takes remainders with the sign of the dividend, also on decimals", () => {
    expect(remainder(10, 3)).toBe(1);
    expect(remainder(-10, 3)).toBe(-1);
    expect(remainder(5.5, 2)).toBe(1.5);
    expect(remainder(0.3, 0.1)).toBe(0);
  });

  it("never produces negative zero", () => {
    expect(Object.is(negate(0), 0)).toBe(true);
    expect(Object.is(multiply(-1, 0), 0)).toBe(true);
    expect(Object.is(remainder(-4, 2), 0)).toBe(true);
  });

  it("compares by decimal value across representations", () => {
    expect(compareNumbers(1, 1.0)).toBe(0);
    expect(compareNumbers(new LosslessNumber("12345678901234567890"), new LosslessNumber("12345678901234567891"))).toBe(
      -1,
    );
    expect(compareNumbers(new LosslessNumber("1.000"), 1)).toBe(0);
    expect(compareNumbers(2, 1)).toBe(1);
  });

  it("reads number literals and tells integers apart", () => {
    expect(numberFromText("1.0")).toBe(1);
    expect(numberFromText("2e3")).toBe(2000);
    expect(isIntegerNumber(numberFromText("1.0"))).toBe(true);
    expect(isIntegerNumber(1.5)).toBe(false);
    expect(isIntegerNumber(new LosslessNumber("123456789012345678901234567890"))).toBe(true);
  });

  it("renders canonical decimal text without exponent while it fits the digit limit", () => {
    expect(numberText(1e21, 1000)).toBe("1000000000000000000000");
    expect(numberText(1e-7, 1000)).toBe("0.0000001");
    expect(numberText(new LosslessNumber("1.500"), 1000)).toBe("1.5");
    expect(numberText(-0, 1000)).toBe("0");
    expect(numberText(42, 1000)).toBe("42");
    expect(numberText(new LosslessNumber("1e999"), 1000)).toBe(`1${"0".repeat(999)}`);
  });

  it("renders in exponent form past the digit limit, never writing the digits out", () => {
    // Written out, these are forty million and a hundred million digits.
    expect(numberText(new LosslessNumber("1e40000000"), 1000)).toBe("1e+40000000");
    expect(numberText(new LosslessNumber("-2.5e-100000000"), 1000)).toBe("-2.5e-100000000");
    expect(numberText(new LosslessNumber("1e1000"), 1000), "1001 digits plain").toBe("1e+1000");
    expect(numberText(new LosslessNumber("1.5e7"), 5)).toBe("1.5e+7");
  });

  it("refuses a number whose significant digits alone pass the limit", () => {
    const long = new LosslessNumber(`${"7".repeat(30)}e50`);
    expect(() => numberText(long, 20)).toThrow(ExprLimitError);
    expect(() => numberText(long, 20)).toThrow(
      "a number with 30 significant digits cannot be rendered within the limit of 20 digits",
    );
  });

  it("shortens numbers in messages", () => {
    expect(shortNumberText(new LosslessNumber("1e40000000"))).toBe("1e+40000000");
    expect(shortNumberText(new LosslessNumber(`${"3".repeat(60)}`))).toBe("3.3333333333333333333e+59");
  });
});

describe("numbers past decimal.js's exponent range", () => {
  it("fail as an expression error instead of becoming Infinity", () => {
    const huge = new LosslessNumber("1e5000000000000000");
    expect(() => multiply(huge, huge)).toThrow(ExprRuntimeError);
    expect(() => multiply(huge, huge)).toThrow("the result is out of range: its decimal exponent would pass 9e15");
  });
});

describe("arithmetic on long and far-apart numbers (issue 12: its cost is bounded by EXACT_DIGITS)", () => {
  it("computes a remainder across a huge exponent gap exactly, by modular powers", () => {
    // 10^k mod 7 cycles with period 6 and 10^10000000 ≡ 10^4 ≡ 4 (mod 7); decimal.js took minutes.
    expect(remainder(new LosslessNumber("1e10000000"), 7)).toBe(4);
    expect(remainder(new LosslessNumber("-1e10000000"), 7)).toBe(-4);
    expect(remainder(new LosslessNumber("3e9000000000000000"), new LosslessNumber("2.5e-3"))).toBe(0);
    expect(remainder(new LosslessNumber("1e100000"), new LosslessNumber("0.3"))).toBe(0.1);
  });

  it("agrees with digit-by-digit division on every gap around where it takes over", () => {
    let seed = 12;
    const digits = (n: number) =>
      Array.from({ length: n }, (_, i) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return i === 0 ? String(1 + (seed % 9)) : String(seed % 10);
      }).join("");
    for (let gap = 0; gap < 400; gap += 7) {
      const x = toDecimal(new LosslessNumber(`${digits(1 + (gap % 40))}e${gap - 20}`));
      const y = toDecimal(new LosslessNumber(`${gap % 2 ? "-" : ""}${digits(1 + (gap % 13))}e-20`));
      expect(remainderOfPowers(x, y).toString(), `gap ${gap}`).toBe(x.mod(y).toString());
    }
  });

  it("rounds operands longer than EXACT_DIGITS before multiplying, so 250,000-digit numbers cost 1,000", () => {
    const long = new LosslessNumber(`0.${"7".repeat(250_000)}`);
    const rounded = new LosslessNumber(`0.${"7".repeat(EXACT_DIGITS - 1)}8`);
    expect(text(multiply(long, long))).toBe(text(multiply(rounded, rounded)));
    expect(text(add(long, 0))).toBe(text(rounded));
    expect(remainder(long, 0.5)).toEqual(remainder(rounded, 0.5));
  });

  it("compares long numbers exactly, also when they share more than EXACT_DIGITS leading digits", () => {
    const a = new LosslessNumber(`0.${"7".repeat(5000)}1`);
    const b = new LosslessNumber(`0.${"7".repeat(5000)}2`);
    expect(compareNumbers(a, b)).toBe(-1);
    expect(compareNumbers(b, a)).toBe(1);
    expect(compareNumbers(a, new LosslessNumber(a.value))).toBe(0);
    expect(compareNumbers(a, 0.8)).toBe(-1);
  });
});
