// The resource budget of one evaluation (docs/limits.md "Evaluation budget"), enforced as the
// work proceeds: every node evaluated is a step, every value built is measured before it is
// kept, every number rendered is bounded. Passing the budget throws ExprLimitError, which the
// engine turns into the instance failure `engine.limit`.
import { ExprLimitError } from "./errors.js";
import { isLosslessNumber, type Json } from "./json.js";

export interface EvalLimits {
  /** Expression nodes evaluated (each element a `map` visits counts its body's nodes). */
  maxSteps: number;
  /** Size of any value an expression or template produces, as characters of its JSON text. */
  maxValueBytes: number;
  /** Digits a number renders to in text; past it the exponent form, past that a refusal. */
  maxNumberDigits: number;
}

export const DEFAULT_EVAL_LIMITS: Readonly<EvalLimits> = Object.freeze({
  maxSteps: 1_000_000,
  maxValueBytes: 8 * 1024 * 1024,
  maxNumberDigits: 1000,
});

/**
 * One evaluation's meter. Shared by every template of a shape (so a shape with many templates
 * has one budget, not one each); create one per evaluation with `evalBudget`.
 */
export interface EvalBudget {
  readonly limits: EvalLimits;
  steps: number;
  /** JSON sizes of objects already measured (values are never mutated during an evaluation). */
  readonly sizes: WeakMap<object, number>;
}

export function evalBudget(limits: Partial<EvalLimits> = {}): EvalBudget {
  return { limits: { ...DEFAULT_EVAL_LIMITS, ...limits }, steps: 0, sizes: new WeakMap() };
}

/**
 * The scope key where the engine puts the server's evaluation limits (like `$now`, an
 * expression cannot name it): every evaluation of that scope gets a budget of these limits.
 */
export const LIMITS_KEY = "$limits";

/** The limits a scope carries under LIMITS_KEY (the defaults for any not given). */
export function limitsIn(scope: { readonly [root: string]: Json | undefined }): EvalLimits {
  const given = scope[LIMITS_KEY];
  const limits = { ...DEFAULT_EVAL_LIMITS };
  if (given !== null && typeof given === "object" && !Array.isArray(given) && !isLosslessNumber(given))
    for (const key of Object.keys(limits) as Array<keyof EvalLimits>)
      if (typeof given[key] === "number") limits[key] = given[key];
  return limits;
}

/** A fresh budget for one evaluation of `scope`, of the limits it carries. */
export function scopeBudget(scope: { readonly [root: string]: Json | undefined }): EvalBudget {
  return evalBudget(limitsIn(scope));
}

export function step(budget: EvalBudget, count = 1): void {
  budget.steps += count;
  if (budget.steps > budget.limits.maxSteps)
    throw new ExprLimitError(
      "steps",
      `the evaluation took more than ${budget.limits.maxSteps} steps (the expression step budget)`,
    );
}

/** Refuses a string about to be built with `length` characters. */
export function checkLength(budget: EvalBudget, length: number, what: string): void {
  if (length + 2 > budget.limits.maxValueBytes)
    throw new ExprLimitError(
      "value_size",
      `${what} would be ${length} characters long, more than the value size limit of ${budget.limits.maxValueBytes}`,
    );
}

/** The size of `value` as JSON text (approximately: numbers by their digits), memoised per object. */
export function jsonSize(budget: EvalBudget, value: Json): number {
  if (value === null) return 4;
  if (typeof value === "boolean") return value ? 4 : 5;
  if (typeof value === "string") return value.length + 2;
  if (typeof value === "number") return String(value).length;
  if (isLosslessNumber(value)) return value.value.length;
  const known = budget.sizes.get(value);
  if (known !== undefined) return known;
  let size = 2;
  if (Array.isArray(value)) for (const item of value) size += jsonSize(budget, item) + 1;
  else for (const [key, item] of Object.entries(value)) size += key.length + 4 + jsonSize(budget, item);
  budget.sizes.set(value, size);
  return size;
}

/** The size of `value` as JSON text (approximately: strings without their escapes), without building the text. */
export function jsonTextSize(value: Json): number {
  return jsonSize(evalBudget(), value);
}

/** Refuses a composite value about to be kept whose parts are `parts`. */
export function checkComposite(budget: EvalBudget, value: Json[] | { [k: string]: Json }, what: string): void {
  const size = jsonSize(budget, value);
  if (size > budget.limits.maxValueBytes)
    throw new ExprLimitError(
      "value_size",
      `${what} is ${size} characters as JSON, more than the value size limit of ${budget.limits.maxValueBytes}`,
    );
}
