import { type Expr, sourceOf } from "./ast.js";
import { BUILTINS } from "./builtins.js";
import {
  checkComposite,
  checkLength,
  type EvalBudget,
  jsonSize,
  numberChars,
  scopeBudget,
  step,
  stepFor,
} from "./budget.js";
import { ExprLimitError, ExprRuntimeError } from "./errors.js";
import type { Json } from "./json.js";
import {
  add,
  compareNumbers,
  divide,
  isIntegerNumber,
  isJsonNumber,
  isZero,
  type JsonNumber,
  multiply,
  negate,
  remainder,
  subtract,
  toDecimal,
} from "./numbers.js";
import { deepEqual, describeValue, setKey } from "./values.js";

/**
 * The values an expression can read: `input`, `outputs`, `self`, `error`, `config`, and the
 * service clock under `$now` (epoch ms, for `now_ms()`). A missing root reads as null.
 */
export interface Scope {
  [root: string]: Json | undefined;
}

interface Context {
  scope: Scope;
  source: string | undefined;
  /** Lambda parameters in scope, innermost last; they shadow roots. */
  locals: Array<{ name: string; value: Json }>;
  budget: EvalBudget;
}

/**
 * Evaluates `expr`; throws ExprRuntimeError (code `engine.expression`) on faults the checker
 * could not rule out, and ExprLimitError (code `engine.limit`) when `budget` runs out. Without
 * a budget, a fresh one of the limits the scope carries (LIMITS_KEY), else the defaults.
 */
export function evaluate(expr: Expr, scope: Scope, budget: EvalBudget = scopeBudget(scope)): Json {
  return run(expr, { scope, source: sourceOf(expr), locals: [], budget });
}

function fault(ctx: Context, node: Expr, reason: string, position = node.start): never {
  throw new ExprRuntimeError(`${reason} at ${position}`, ctx.source, position);
}

const isPlainObject = (v: Json): v is { [k: string]: Json } =>
  v !== null && typeof v === "object" && !Array.isArray(v) && !isJsonNumber(v);

function run(node: Expr, ctx: Context): Json {
  step(ctx.budget);
  switch (node.kind) {
    case "literal":
      return node.value;
    case "array": {
      const out = node.items.map((item) => run(item, ctx));
      checkComposite(ctx.budget, out, "an array literal");
      return out;
    }
    case "object": {
      const out: { [k: string]: Json } = {};
      for (const entry of node.entries) setKey(out, entry.key, run(entry.value, ctx));
      checkComposite(ctx.budget, out, "an object literal");
      return out;
    }
    case "identifier": {
      for (let i = ctx.locals.length - 1; i >= 0; i--) if (ctx.locals[i].name === node.name) return ctx.locals[i].value;
      return Object.hasOwn(ctx.scope, node.name) ? (ctx.scope[node.name] ?? null) : null;
    }
    case "member":
      return readProperty(ctx, node, run(node.object, ctx), node.property, node.propertyStart);
    case "index": {
      const target = run(node.object, ctx);
      const index = run(node.index, ctx);
      if (target === null) return null;
      if (Array.isArray(target)) {
        if (!isJsonNumber(index) || !isIntegerNumber(index))
          fault(ctx, node.index, `an array index must be an integer, got ${describeValue(index)}`);
        const i = typeof index === "number" ? index : toDecimal(index).toNumber();
        return i >= 0 && i < target.length ? target[i] : null;
      }
      if (typeof index !== "string")
        fault(ctx, node.index, `a key must be a string to index ${describeValue(target)}, got ${describeValue(index)}`);
      return readProperty(ctx, node, target, index as string, node.index.start);
    }
    case "unary":
      return runUnary(node, ctx);
    case "binary":
      return runBinary(node, ctx);
    case "conditional": {
      const test = run(node.test, ctx);
      if (typeof test !== "boolean")
        fault(ctx, node.test, `the condition of "? :" must be a boolean, got ${describeValue(test)}`);
      return run(test ? node.consequent : node.alternate, ctx);
    }
    case "call": {
      const args = node.args.map((arg) => run(arg, ctx));
      try {
        return BUILTINS[node.name].call(args, ctx.scope, ctx.budget);
      } catch (error) {
        if (error instanceof ExprRuntimeError && error.position === undefined) fault(ctx, node, error.reason);
        throw error;
      }
    }
    case "map": {
      const list = run(node.list, ctx);
      if (list === null) return null;
      if (!Array.isArray(list)) fault(ctx, node.list, `map() expects an array, got ${describeValue(list)}`);
      const [itemName, indexName] = node.params;
      // The result is measured as it grows: a nested map can build far more than it reads.
      let size = 2;
      return (list as Json[]).map((item, i) => {
        ctx.locals.push({ name: itemName, value: item });
        if (indexName !== undefined) ctx.locals.push({ name: indexName, value: i });
        try {
          const value = run(node.body, ctx);
          size += jsonSize(ctx.budget, value) + 1;
          if (size > ctx.budget.limits.maxValueBytes)
            throw new ExprLimitError(
              "value_size",
              `the result of map() grew past ${ctx.budget.limits.maxValueBytes} characters as JSON (the value size limit) at element ${i}`,
            );
          return value;
        } finally {
          ctx.locals.length -= indexName === undefined ? 1 : 2;
        }
      });
    }
  }
}

function readProperty(ctx: Context, node: Expr, target: Json, key: string, position: number): Json {
  if (target === null) return null;
  if (isPlainObject(target)) return Object.hasOwn(target, key) ? target[key] : null;
  return fault(ctx, node, `cannot read property "${key}" of ${describeValue(target)}`, position);
}

function runUnary(node: Extract<Expr, { kind: "unary" }>, ctx: Context): Json {
  const value = run(node.operand, ctx);
  if (node.op === "!") {
    if (typeof value !== "boolean") fault(ctx, node, `"!" expects a boolean, got ${describeValue(value)}`);
    return !value;
  }
  if (!isJsonNumber(value)) fault(ctx, node, `unary "${node.op}" expects a number, got ${describeValue(value)}`);
  return node.op === "-" ? negate(value as JsonNumber) : value;
}

function runBinary(node: Extract<Expr, { kind: "binary" }>, ctx: Context): Json {
  const op = node.op;
  if (op === "&&" || op === "||") {
    const left = run(node.left, ctx);
    if (typeof left !== "boolean")
      fault(ctx, node.left, `"${op}" expects booleans, got ${describeValue(left)} on the left`);
    if (op === "&&" ? !left : left) return left;
    const right = run(node.right, ctx);
    if (typeof right !== "boolean")
      fault(ctx, node.right, `"${op}" expects booleans, got ${describeValue(right)} on the right`);
    return right;
  }
  if (op === "??") {
    const left = run(node.left, ctx);
    return left !== null ? left : run(node.right, ctx);
  }
  const left = run(node.left, ctx);
  const right = run(node.right, ctx);
  // Numbers kept exactly cost work in their digits (== and != are charged by deepEqual).
  if (op !== "==" && op !== "!=") stepFor(ctx.budget, numberChars(left) + numberChars(right));
  switch (op) {
    case "==":
      return deepEqual(left, right, ctx.budget);
    case "!=":
      return !deepEqual(left, right, ctx.budget);
    case "+":
      if (isJsonNumber(left) && isJsonNumber(right)) return add(left, right);
      if (typeof left === "string" && typeof right === "string") {
        checkLength(ctx.budget, left.length + right.length, 'the string built by "+"');
        return left + right;
      }
      return fault(
        ctx,
        node,
        `"+" adds two numbers or concatenates two strings, got ${describeValue(left)} and ${describeValue(right)}`,
        node.opStart,
      );
    case "<":
    case "<=":
    case ">":
    case ">=": {
      let order: number;
      if (isJsonNumber(left) && isJsonNumber(right)) order = compareNumbers(left, right);
      else if (typeof left === "string" && typeof right === "string") {
        stepFor(ctx.budget, Math.min(left.length, right.length));
        order = left < right ? -1 : left > right ? 1 : 0;
      } else
        return fault(
          ctx,
          node,
          `"${op}" compares two numbers or two strings, got ${describeValue(left)} and ${describeValue(right)}`,
          node.opStart,
        );
      return op === "<" ? order < 0 : op === "<=" ? order <= 0 : op === ">" ? order > 0 : order >= 0;
    }
    default: {
      if (!isJsonNumber(left) || !isJsonNumber(right)) {
        return fault(
          ctx,
          node,
          `"${op}" expects two numbers, got ${describeValue(left)} and ${describeValue(right)}`,
          node.opStart,
        );
      }
      if (op === "-") return subtract(left, right);
      if (op === "*") return multiply(left, right);
      if (isZero(right))
        return fault(ctx, node, op === "/" ? "division by zero" : "remainder by zero (%)", node.opStart);
      return op === "/" ? divide(left, right) : remainder(left, right);
    }
  }
}
