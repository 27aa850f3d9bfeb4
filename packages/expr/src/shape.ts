// Shapes (docs/language.md "Templates and shapes"): JSON written as is whose string leaves are templates. Compiling
// parses every template once; evaluation then only walks the tree.
import { checkComposite, type EvalBudget, scopeBudget } from "./budget.js";
import { ExprLimitError, ExprRuntimeError, ExprSyntaxError, ShapeError } from "./errors.js";
import type { Scope } from "./evaluate.js";
import { isLosslessNumber, type Json } from "./json.js";
import { joinIndex, joinKey } from "./path.js";
import { setKey } from "./values.js";
import { evaluateTemplate, parseTemplate, type Template } from "./template.js";

/** Every node carries its path (e.g. `body.items[2]`) for check problems. */
export type CompiledShape =
  | { kind: "value"; path: string; value: Exclude<Json, string | Json[] | { [k: string]: Json }> }
  | { kind: "template"; path: string; template: Template }
  | { kind: "array"; path: string; items: CompiledShape[] }
  | { kind: "object"; path: string; entries: Array<[string, CompiledShape]> };

/** Compiles a shape; `path` prefixes every reported path. Throws ShapeError naming the leaf. */
export function compileShape(shape: Json, path = ""): CompiledShape {
  if (typeof shape === "string") {
    try {
      const template = parseTemplate(shape);
      return { kind: "template", path, template };
    } catch (error) {
      if (error instanceof ExprSyntaxError) throw new ShapeError(path, error);
      throw error;
    }
  }
  if (Array.isArray(shape))
    return { kind: "array", path, items: shape.map((item, i) => compileShape(item, joinIndex(path, i))) };
  if (shape !== null && typeof shape === "object" && !isLosslessNumber(shape)) {
    return {
      kind: "object",
      path,
      entries: Object.entries(shape).map(([key, value]) => [key, compileShape(value, joinKey(path, key))]),
    };
  }
  return { kind: "value", path, value: shape as Exclude<Json, string | Json[] | { [k: string]: Json }> };
}

/**
 * Evaluates a compiled shape; throws ExprRuntimeError from its expressions and ExprLimitError
 * when the evaluation passes `budget` (one budget for the whole shape, not one per template).
 */
export function evaluateShape(shape: CompiledShape, scope: Scope, budget: EvalBudget = scopeBudget(scope)): Json {
  const value = evaluateNode(shape, scope, budget);
  if (value !== null && typeof value === "object" && !isLosslessNumber(value))
    checkComposite(budget, value, "the value built by the shape");
  return value;
}

function evaluateNode(shape: CompiledShape, scope: Scope, budget: EvalBudget): Json {
  switch (shape.kind) {
    case "value":
      return shape.value;
    case "template":
      try {
        return evaluateTemplate(shape.template, scope, budget);
      } catch (error) {
        if (error instanceof ExprRuntimeError && error.path === undefined && shape.path) {
          throw new ExprRuntimeError(error.reason, error.source, error.position, shape.path);
        }
        if (error instanceof ExprLimitError && error.path === undefined && shape.path)
          throw new ExprLimitError(error.limit, error.reason, shape.path);
        throw error;
      }
    case "array":
      return shape.items.map((item) => evaluateNode(item, scope, budget));
    case "object": {
      const out: { [k: string]: Json } = {};
      for (const [key, value] of shape.entries) setKey(out, key, evaluateNode(value, scope, budget));
      return out;
    }
  }
}
