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
