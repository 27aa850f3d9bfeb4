// The resource budget of one evaluation (docs/limits.md "Evaluation budget"), enforced as the
// work proceeds: every node evaluated is a step, every value built is measured before it is
// kept, every number rendered is bounded. Passing the budget throws ExprLimitError, which the
// engine turns into the instance failure `engine.limit`.
import { ExprLimitError } from "./errors.js";
import { isLosslessNumber, type Json } from "./json.js";
import { DEFAULT_EVAL_LIMITS, type EvalLimits } from "./eval-limits.js";

export { DEFAULT_EVAL_LIMITS, type EvalLimits };

/**
 * One evaluation's meter. Shared by every template of a shape (so a shape with many templates
 * has one budget, not one each); create one per evaluation with `evalBudget`.
 */
export interface EvalBudget {
  readonly limits: EvalLimits;
  steps: number;
  /**
   * JSON sizes and heights of objects already measured (values are never mutated during an
   * evaluation); made by the first measure, since most evaluations build no composite value.
   */
  sizes?: WeakMap<object, { size: number; height: number }>;
}

export function evalBudget(limits: Partial<EvalLimits> = {}): EvalBudget {
  return { limits: { ...DEFAULT_EVAL_LIMITS, ...limits }, steps: 0 };
}

/**
 * The scope key where the engine puts the server's evaluation limits (like `$now`, an
 * expression cannot name it): every evaluation of that scope gets a budget of these limits.
 */
export const LIMITS_KEY = "$limits";

/**
 * The limits of each LIMITS_KEY object seen, by identity: one advance evaluates many templates
 * against scopes carrying the same object. Whoever puts an object there must not change it
 * afterwards (the engine builds one per advance and never touches it again).
 */
const limitsOf = new WeakMap<object, Readonly<EvalLimits>>();

/** The limits a scope carries under LIMITS_KEY (the defaults for any not given). */
export function limitsIn(scope: { readonly [root: string]: Json | undefined }): Readonly<EvalLimits> {
  const given = scope[LIMITS_KEY];
  if (given === null || typeof given !== "object" || Array.isArray(given) || isLosslessNumber(given))
    return DEFAULT_EVAL_LIMITS;
  let limits = limitsOf.get(given);
  if (limits === undefined) {
    const read = { ...DEFAULT_EVAL_LIMITS };
    for (const key of Object.keys(read) as Array<keyof EvalLimits>)
      if (typeof given[key] === "number") read[key] = given[key];
    limits = Object.freeze(read);
    limitsOf.set(given, limits);
  }
  return limits;
}

/** A fresh budget for one evaluation of `scope`, of the limits it carries. */
export function scopeBudget(scope: { readonly [root: string]: Json | undefined }): EvalBudget {
  return { limits: limitsIn(scope), steps: 0 };
}

export function step(budget: EvalBudget, count = 1): void {
  budget.steps += count;
  if (budget.steps > budget.limits.maxSteps)
    throw new ExprLimitError(
      "steps",
      `the evaluation took more than ${budget.limits.maxSteps} steps (the expression step budget)`,
    );
}

/**
 * Characters (or elements, or keys) of work one step stands for. A step is one node visited,
 * about 0.1 µs on this machine; reading or writing a character costs 5–10 ns, so a builtin or
 * operator whose work grows with its arguments (`len`, `lower`, `contains`, `==`, `join` …)
 * charges one step per this many (docs/limits.md "Run time: the evaluation budget"). Without
 * it, `map(input.xs, x => len(input.s))` held the event loop for seconds inside the budget.
 */
export const STEP_CHARS = 16;

/** Charges the steps of work proportional to `size` characters (elements, keys). */
export function stepFor(budget: EvalBudget, size: number): void {
  if (size >= STEP_CHARS) step(budget, Math.floor(size / STEP_CHARS));
}

/** Characters of a number kept exactly (a LosslessNumber's text); 0 for a float64, whose work is constant. */
export function numberChars(value: Json): number {
  return isLosslessNumber(value) ? value.value.length : 0;
}

/** Refuses a string about to be built with `length` characters. */
export function checkLength(budget: EvalBudget, length: number, what: string): void {
  if (length + 2 > budget.limits.maxValueBytes)
    throw new ExprLimitError(
      "value_size",
      `${what} would be ${length} characters long, more than the value size limit of ${budget.limits.maxValueBytes}`,
    );
}

/**
 * The size of `value` as JSON text (approximately: numbers by their digits), memoised per
 * object. Throws ExprLimitError when the value is nested deeper than maxValueDepth (measuring
 * stops there, so the recursion is bounded too).
 */
export function jsonSize(budget: EvalBudget, value: Json): number {
  return measure(budget, value, 0).size;
}

function measure(budget: EvalBudget, value: Json, level: number): { size: number; height: number } {
  if (value === null) return { size: 4, height: 0 };
  if (typeof value === "boolean") return { size: value ? 4 : 5, height: 0 };
  if (typeof value === "string") return { size: value.length + 2, height: 0 };
  if (typeof value === "number") return { size: String(value).length, height: 0 };
  if (isLosslessNumber(value)) return { size: value.value.length, height: 0 };
  const max = budget.limits.maxValueDepth;
  budget.sizes ??= new WeakMap();
  let known = budget.sizes.get(value);
  if (known === undefined) {
    if (level >= max) tooDeep(max);
    let size = 2;
    let height = 0;
    const add = (item: Json, extra: number) => {
      const m = measure(budget, item, level + 1);
      size += m.size + extra;
      if (m.height > height) height = m.height;
    };
    if (Array.isArray(value)) for (const item of value) add(item, 1);
    else for (const [key, item] of Object.entries(value)) add(item, key.length + 4);
    known = { size, height: height + 1 };
    budget.sizes.set(value, known);
  }
  if (level + known.height > max) tooDeep(max);
  return known;
}

function tooDeep(max: number): never {
  throw new ExprLimitError(
    "value_depth",
    `a value would be nested more than ${max} levels deep (the value depth limit)`,
  );
}

/**
 * The size of `value` as JSON text (approximately: strings without their escapes), without
 * building the text: the figure jsonSize gives, with no depth bound and no memo. It runs on
 * every advance's whole state (the state-size limit), where allocating a memo entry per
 * object cost more than the sum itself.
 */
export function jsonTextSize(value: Json): number {
  if (value === null) return 4;
  switch (typeof value) {
    case "boolean":
      return value ? 4 : 5;
    case "string":
      return value.length + 2;
    case "number":
      return String(value).length;
  }
  if (isLosslessNumber(value)) return value.value.length;
  let size = 2;
  if (Array.isArray(value)) for (const item of value) size += jsonTextSize(item) + 1;
  else for (const [key, item] of Object.entries(value)) size += jsonTextSize(item) + key.length + 4;
  return size;
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
