import type { Json } from "./json.js";

/** Offsets into the parsed source: `start` inclusive, `end` exclusive. */
interface Span {
  start: number;
  end: number;
}

export type BinaryOperator = "*" | "/" | "%" | "+" | "-" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||" | "??";
export type UnaryOperator = "!" | "-" | "+";

export type LiteralExpr = Span & { kind: "literal"; value: Json };
export type ArrayExpr = Span & { kind: "array"; items: Expr[] };
export type ObjectExpr = Span & { kind: "object"; entries: Array<{ key: string; keyStart: number; value: Expr }> };
/** A root (`input`, `outputs`…) or a lambda parameter; parameters shadow roots. */
export type IdentifierExpr = Span & { kind: "identifier"; name: string };
/** `object.property` */
export type MemberExpr = Span & { kind: "member"; object: Expr; property: string; propertyStart: number };
/** `object[index]` */
export type IndexExpr = Span & { kind: "index"; object: Expr; index: Expr };
export type UnaryExpr = Span & { kind: "unary"; op: UnaryOperator; operand: Expr };
export type BinaryExpr = Span & { kind: "binary"; op: BinaryOperator; left: Expr; right: Expr; opStart: number };
export type ConditionalExpr = Span & { kind: "conditional"; test: Expr; consequent: Expr; alternate: Expr };
/** A call of a function from BUILTINS. */
export type CallExpr = Span & { kind: "call"; name: string; args: Expr[] };
/** `map(list, x => body)` or `map(list, (x, i) => body)`. */
export type MapExpr = Span & { kind: "map"; list: Expr; params: [string] | [string, string]; body: Expr };

export type Expr =
  | LiteralExpr
  | ArrayExpr
  | ObjectExpr
  | IdentifierExpr
  | MemberExpr
  | IndexExpr
  | UnaryExpr
  | BinaryExpr
  | ConditionalExpr
  | CallExpr
  | MapExpr;

// The source rides on the root node as a non-enumerable symbol property: a WeakMap entry per
// parsed expression made every garbage collection walk tens of thousands of ephemerons when a
// large definition is checked.
const SOURCE = Symbol("source");

/** Remembers the text an expression was parsed from, so later errors can quote it. */
export function registerSource(expr: Expr, source: string): void {
  Object.defineProperty(expr, SOURCE, { value: source, enumerable: false });
}

/** The text `expr` was parsed from (only for expressions returned by the parser). */
export function sourceOf(expr: Expr): string | undefined {
  return (expr as { [SOURCE]?: string })[SOURCE];
}
