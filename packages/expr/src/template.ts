// String leaves of shapes (docs/language.md "Templates and shapes"): "$: EXPR" is the typed value of EXPR, a string with
// "${ EXPR }" interpolates (always a string), anything else is literal; "$$" is a literal "$".
import type { Expr } from "./ast.js";
import { checkLength, type EvalBudget, scopeBudget, stepFor } from "./budget.js";
import { ExprSyntaxError } from "./errors.js";
import { evaluate, type Scope } from "./evaluate.js";
import type { Json } from "./json.js";
import { parseExpressionIn } from "./parser.js";
import { renderValue } from "./values.js";

/** An expression inside a template; `offset` is where `source` starts in the template text. */
export interface TemplateExpr {
  expr: Expr;
  source: string;
  offset: number;
}

export type Template =
  | { kind: "expr"; expr: Expr; source: string; offset: number }
  | { kind: "interpolation"; parts: Array<string | TemplateExpr> }
  | { kind: "literal"; value: string };

const EXPR_PREFIX = "$:";

/** Parses a string leaf. Expression positions (in errors and nodes) are offsets into `text`. Throws ExprSyntaxError. */
export function parseTemplate(text: string): Template {
  if (text.startsWith(EXPR_PREFIX)) {
    const offset = firstNonBlank(text, EXPR_PREFIX.length);
    if (offset === text.length)
      throw new ExprSyntaxError(
        `empty expression after "$:" at ${offset}, expected an expression, e.g. "$: input.id"`,
        text,
        offset,
      );
    const expr = parseExpressionIn(text, EXPR_PREFIX.length, text.length);
    return { kind: "expr", expr, source: text.slice(offset).trimEnd(), offset };
  }
  if (!text.includes("$")) return { kind: "literal", value: text };
  const parts: Array<string | TemplateExpr> = [];
  let literal = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "$" && text[i + 1] === "$") {
      literal += "$";
      i += 2;
    } else if (c === "$" && text[i + 1] === "{") {
      const close = findClosingBrace(text, i + 2);
      if (close === -1)
        throw new ExprSyntaxError(
          `unterminated "\${" at ${i}, expected "}" closing the interpolation (write "$$" for a literal "$")`,
          text,
          i,
        );
      const offset = firstNonBlank(text, i + 2);
      if (offset === close)
        throw new ExprSyntaxError(`empty interpolation at ${i}, expected an expression inside "\${ }"`, text, i);
      if (literal) parts.push(literal);
      literal = "";
      parts.push({ expr: parseExpressionIn(text, i + 2, close), source: text.slice(offset, close).trimEnd(), offset });
      i = close + 1;
    } else {
      literal += c;
      i++;
    }
  }
  if (literal) parts.push(literal);
  if (parts.every((p) => typeof p === "string")) return { kind: "literal", value: parts.join("") };
  return { kind: "interpolation", parts };
}

function firstNonBlank(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i])) i++;
  return i;
}

/** Index of the "}" that closes an interpolation opened just before `from`, skipping nested braces and quoted strings; -1 if none. */
function findClosingBrace(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === "\\") i++;
    } else if (c === "{") {
      depth++;
    } else if (c === "}") {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/**
 * `$:` gives the typed value; interpolation renders each value (strings as is, numbers in
 * decimal, others as JSON, null as "null"), within `budget` (the string is measured before
 * it grows).
 */
export function evaluateTemplate(template: Template, scope: Scope, budget: EvalBudget = scopeBudget(scope)): Json {
  switch (template.kind) {
    case "literal":
      return template.value;
    case "expr":
      return evaluate(template.expr, scope, budget);
    case "interpolation": {
      let out = "";
      for (const part of template.parts) {
        const text =
          typeof part === "string"
            ? part
            : renderValue(evaluate(part.expr, scope, budget), budget.limits.maxNumberDigits);
        if (typeof part !== "string") stepFor(budget, text.length);
        checkLength(budget, out.length + text.length, "the interpolated string");
        out += text;
      }
      return out;
    }
  }
}
