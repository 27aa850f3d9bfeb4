import { withQuote } from "./source-quote.js";

/** A malformed expression or template. The message quotes the source with a caret at `position`. */
export class ExprSyntaxError extends Error {
  readonly source: string;
  readonly position: number;
  /** The message without the quoted source, e.g. `unexpected ")" at 10, expected an expression`. */
  readonly reason: string;

  constructor(reason: string, source: string, position: number) {
    super(withQuote(reason, source, position));
    this.name = "ExprSyntaxError";
    this.reason = reason;
    this.source = source;
    this.position = position;
  }
}

/** A fault while evaluating: the engine fails the instance with code `engine.expression`. */
export class ExprRuntimeError extends Error {
  readonly code = "engine.expression" as const;
  readonly reason: string;
  readonly source?: string;
  readonly position?: number;
  /** Where in a shape the failing template sits, e.g. `body.items[2]` (set by evaluateShape). */
  readonly path?: string;

  constructor(reason: string, source?: string, position?: number, path?: string) {
    super((path ? `${path}: ` : "") + withQuote(reason, source, position));
    this.name = "ExprRuntimeError";
    this.reason = reason;
    this.source = source;
    this.position = position;
    this.path = path;
  }
}

/** Which bound of the evaluation budget was passed (docs/limits.md). */
export type EvalLimitKind = "steps" | "value_size" | "value_depth" | "number_digits";

/**
 * An evaluation passed its budget (steps, value size, number digits): the engine fails the
 * instance with code `engine.limit`. Distinct from ExprRuntimeError: it is not a fault of the
 * values but of their size, and the budget is the operator's to raise.
 */
export class ExprLimitError extends Error {
  readonly code = "engine.limit" as const;
  readonly limit: EvalLimitKind;
  readonly reason: string;
  /** Where in a shape the evaluation was, e.g. `body.items[2]` (set by evaluateShape). */
  readonly path?: string;

  constructor(limit: EvalLimitKind, reason: string, path?: string) {
    super((path ? `${path}: ` : "") + reason);
    this.name = "ExprLimitError";
    this.limit = limit;
    this.reason = reason;
    this.path = path;
  }
}

/** A template inside a shape failed to parse; `path` says where, e.g. `body.items[2]`. */
export class ShapeError extends Error {
  readonly path: string;
  readonly syntaxError: ExprSyntaxError;

  constructor(path: string, cause: ExprSyntaxError) {
    super(`${path || "(shape)"}: ${cause.message}`);
    this.name = "ShapeError";
    this.path = path;
    this.syntaxError = cause;
  }
}
