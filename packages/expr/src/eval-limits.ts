// Its own module, free of imports: a server's flag table reads these defaults through the
// `@baton/expr/eval-limits` subpath without loading the language.

export interface EvalLimits {
  /** Expression nodes evaluated (each element a `map` visits counts its body's nodes). */
  maxSteps: number;
  /** Size of any value an expression or template produces, as characters of its JSON text. */
  maxValueBytes: number;
  /** Digits a number renders to in text; past it the exponent form, past that a refusal. */
  maxNumberDigits: number;
  /** Nesting levels of any value an expression or template produces (a loop can nest a value one level per visit). */
  maxValueDepth: number;
}

export const DEFAULT_EVAL_LIMITS: Readonly<EvalLimits> = Object.freeze({
  maxSteps: 1_000_000,
  maxValueBytes: 8 * 1024 * 1024,
  maxNumberDigits: 1000,
  maxValueDepth: 128,
});
