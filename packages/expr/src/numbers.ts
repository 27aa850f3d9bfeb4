// Exact decimal arithmetic over JSON numbers. A number that a float64 round-trips exactly
// (its shortest decimal text equals the decimal value) comes back as a JS number; anything
// else as a LosslessNumber (plain digits, no exponent), so big integers and long fractions
// survive unchanged.
import { Decimal } from "decimal.js";
import { ExprLimitError, ExprRuntimeError } from "./errors.js";
import { isLosslessNumber, LosslessNumber } from "./json.js";

export type JsonNumber = number | LosslessNumber;

/**
 * + - * % are exact up to this many significant digits (far beyond any real payload): longer
 * operands are rounded to it first, so every operation costs at most this many digits however
 * long the numbers in the data are (docs/language.md#numbers).
 */
export const EXACT_DIGITS = 1000;
/** `/` rounds to this many significant digits, half-even (IEEE 754 decimal128). */
export const QUOTIENT_DIGITS = 34;

const Exact = Decimal.clone({
  precision: EXACT_DIGITS,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -EXACT_DIGITS,
  toExpPos: EXACT_DIGITS,
});
const Quotient = Exact.clone({ precision: QUOTIENT_DIGITS });

export function isJsonNumber(value: unknown): value is JsonNumber {
  return typeof value === "number" || isLosslessNumber(value);
}

/**
 * Each LosslessNumber's exact Decimal and its operand form, made once: a number of 250,000
 * digits costs ~30 ms to read, and one evaluation may read it at every step. LosslessNumbers
 * are never mutated (values are immutable throughout evaluation), so the cache stays valid.
 */
const exactOf = new WeakMap<LosslessNumber, Decimal>();
const operandOf = new WeakMap<LosslessNumber, Decimal>();

export function toDecimal(value: JsonNumber): Decimal {
  if (typeof value === "number") return new Exact(value);
  let d = exactOf.get(value);
  if (d === undefined) exactOf.set(value, (d = new Exact(value.value)));
  return d;
}

/**
 * The value arithmetic works on: rounded to EXACT_DIGITS significant digits (half-even) when
 * longer. decimal.js multiplies in time quadratic in the digits (two 250,000-digit operands
 * took 56 s), and rounds every result to EXACT_DIGITS anyway.
 */
function operand(value: JsonNumber): Decimal {
  if (typeof value === "number") return new Exact(value);
  let d = operandOf.get(value);
  if (d === undefined) {
    d = toDecimal(value);
    if (d.sd() > EXACT_DIGITS) d = d.toSignificantDigits(EXACT_DIGITS);
    operandOf.set(value, d);
  }
  return d;
}

export function fromDecimal(value: Decimal): JsonNumber {
  // decimal.js overflows to Infinity past an exponent of 9e15, which no JSON number can hold.
  if (!value.isFinite()) throw new ExprRuntimeError("the result is out of range: its decimal exponent would pass 9e15");
  const n = value.toNumber();
  if (Number.isFinite(n) && new Exact(n).eq(value)) return n === 0 ? 0 : n;
  return new LosslessNumber(value.toString());
}

/** The value of a number literal written in an expression (digits, optional fraction and exponent). */
export function numberFromText(text: string): JsonNumber {
  return fromDecimal(new Exact(text));
}

const bothSafeIntegers = (a: JsonNumber, b: JsonNumber): boolean =>
  typeof a === "number" && typeof b === "number" && Number.isSafeInteger(a) && Number.isSafeInteger(b);

export function add(a: JsonNumber, b: JsonNumber): JsonNumber {
  if (bothSafeIntegers(a, b)) {
    const sum = (a as number) + (b as number);
    if (Number.isSafeInteger(sum)) return sum;
  }
  return fromDecimal(operand(a).plus(operand(b)));
}

export function subtract(a: JsonNumber, b: JsonNumber): JsonNumber {
  if (bothSafeIntegers(a, b)) {
    const difference = (a as number) - (b as number);
    if (Number.isSafeInteger(difference)) return difference === 0 ? 0 : difference;
  }
  return fromDecimal(operand(a).minus(operand(b)));
}

export function multiply(a: JsonNumber, b: JsonNumber): JsonNumber {
  if (bothSafeIntegers(a, b)) {
    const product = (a as number) * (b as number);
    if (Number.isSafeInteger(product)) return product === 0 ? 0 : product;
  }
  return fromDecimal(operand(a).times(operand(b)));
}

export function isZero(a: JsonNumber): boolean {
  return typeof a === "number" ? a === 0 : toDecimal(a).isZero();
}

/**
 * Exact when the quotient terminates within the digits of both operands (plus slack), e.g. a
 * 40-digit integer halved; otherwise rounded to QUOTIENT_DIGITS (1/3). Callers check for a zero divisor.
 */
export function divide(a: JsonNumber, b: JsonNumber): JsonNumber {
  const x = operand(a);
  const y = operand(b);
  const digits = Math.min(EXACT_DIGITS, Math.max(QUOTIENT_DIGITS, x.sd() + y.sd()) + 16);
  const q = new (quotientAt(digits))(x).div(y);
  // Verify at full precision: a rounded product could look equal to the dividend.
  if (new Exact(q).times(y).eq(x)) return fromDecimal(new Exact(q));
  return fromDecimal(new Quotient(q).toSignificantDigits(QUOTIENT_DIGITS));
}

const quotientConstructors = new Map<number, typeof Decimal>();

function quotientAt(digits: number): typeof Decimal {
  let ctor = quotientConstructors.get(digits);
  if (ctor === undefined) quotientConstructors.set(digits, (ctor = Exact.clone({ precision: digits })));
  return ctor;
}

/** Truncated remainder (sign of the dividend, like JS `%`), exact. Callers check for a zero divisor. */
export function remainder(a: JsonNumber, b: JsonNumber): JsonNumber {
  if (bothSafeIntegers(a, b)) {
    const r = (a as number) % (b as number);
    return r === 0 ? 0 : r;
  }
  const x = operand(a);
  const y = operand(b);
  // decimal.js divides digit by digit, in time quadratic in the gap of the exponents
  // (1e1000000 % 7 took 1.5 s, 1e10000000 % 7 minutes); past a small gap, powers instead.
  if (x.e - y.e > REMAINDER_GAP) return fromDecimal(remainderOfPowers(x, y));
  return fromDecimal(x.mod(y));
}

/** Exponent gaps up to this use decimal.js's `mod` (about a millisecond at this gap). */
export const REMAINDER_GAP = 4 * EXACT_DIGITS;

/**
 * x % y (truncated, the sign of x) for |x| far above |y|, exactly, in time logarithmic in the
 * gap: with x = X·10^p and y = Y·10^q (X, Y integers of at most EXACT_DIGITS digits) and
 * s = min(p, q), x % y = ((X·10^(p−s)) mod (Y·10^(q−s)))·10^s, and 10^(p−s) mod Y' is a modular
 * power. q − p is at most EXACT_DIGITS here (|x| > |y| and X has at most that many digits).
 */
export function remainderOfPowers(x: Decimal, y: Decimal): Decimal {
  const [xDigits, p] = integerAndExponent(x);
  const [yDigits, q] = integerAndExponent(y);
  const s = Math.min(p, q);
  const modulus = yDigits * 10n ** BigInt(q - s);
  let power = 1n;
  let base = 10n % modulus;
  for (let e = BigInt(p - s); e > 0n; e >>= 1n) {
    if (e & 1n) power = (power * base) % modulus;
    base = (base * base) % modulus;
  }
  const r = ((xDigits % modulus) * power) % modulus;
  return new Exact(`${x.isNegative() ? "-" : ""}${r}e${s}`);
}

/** |d| as an integer X and exponent p with |d| = X·10^p. */
function integerAndExponent(d: Decimal): [bigint, number] {
  const [mantissa, exponent] = d.abs().toExponential().split("e");
  const digits = mantissa.replace(".", "");
  return [BigInt(digits), Number(exponent) - (digits.length - 1)];
}

export function negate(a: JsonNumber): JsonNumber {
  if (typeof a === "number") return a === 0 ? 0 : -a;
  return fromDecimal(toDecimal(a).neg());
}

/** -1, 0 or 1 by decimal value. */
export function compareNumbers(a: JsonNumber, b: JsonNumber): number {
  // Distinct float64 values have distinct shortest decimal texts in the same order, so native comparison agrees.
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  // Rounding is monotonic, so unequal operand forms order a and b; only equal ones (a shared
  // prefix of EXACT_DIGITS digits) need the exact, longer comparison.
  const order = operand(a).comparedTo(operand(b));
  return order !== 0 ? order : toDecimal(a).comparedTo(toDecimal(b));
}

export function isIntegerNumber(a: JsonNumber): boolean {
  return typeof a === "number" ? Number.isInteger(a) : toDecimal(a).isInteger();
}

/**
 * How a number renders as text (docs/language.md "Numbers in text"): plain decimal without
 * exponent or trailing zeros (`1e21` → `1000000000000000000000`, `-0` → `0`) when that takes at
 * most `maxDigits` digits; otherwise exponent form (`1e+40000000`) when its significant digits
 * fit; otherwise ExprLimitError. Never writes out more than `maxDigits` digits (a 12-character
 * `1e40000000` would be forty million).
 */
export function numberText(a: JsonNumber, maxDigits: number): string {
  if (typeof a === "number" && Number.isSafeInteger(a)) return String(a === 0 ? 0 : a);
  const d = toDecimal(a);
  const significant = d.sd();
  if (plainDigits(d) <= maxDigits) return d.toFixed();
  if (significant <= maxDigits) return d.toExponential();
  throw new ExprLimitError(
    "number_digits",
    `a number with ${significant} significant digits cannot be rendered within the limit of ${maxDigits} digits`,
  );
}

/** Digits of the plain decimal form: integer digits (at least one) plus fraction digits. */
function plainDigits(d: Decimal): number {
  const significant = d.sd();
  return d.e >= 0 ? Math.max(d.e + 1, significant) : significant - d.e;
}

/** A short text of a number for messages: plain up to 40 digits, else exponent form with at most 20 significant digits. */
export function shortNumberText(a: JsonNumber): string {
  if (typeof a === "number" && Number.isSafeInteger(a)) return String(a === 0 ? 0 : a);
  const d = toDecimal(a);
  if (plainDigits(d) <= 40) return d.toFixed();
  return d.toSignificantDigits(20).toExponential();
}
