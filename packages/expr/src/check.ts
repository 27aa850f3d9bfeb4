// Over 300 lines on purpose: one checker over every expression node kind; the cases call each other
// recursively and share the environment and problem list.
// Static checking of expressions and templates against JSON Schemas (docs/language.md "Expressions", "Schemas").
// Only definite mismatches are problems (a value whose type has no valid member for the
// operator); values that merely may be null fail at run time with engine.expression, except
// that interpolation and `case` are checked for null as the language requires.
import { type Expr, sourceOf } from "./ast.js";
import { BUILTINS } from "./builtins.js";
import { withQuote } from "./source-quote.js";
import {
  admits,
  BOOLEAN_TYPE,
  type Defs,
  describeType,
  elementType,
  INTEGER_TYPE,
  itemType,
  type JsonSchema,
  type Lookup,
  type JsonType,
  mayBeNull,
  NULL_TYPE,
  NUMBER_TYPE,
  propertyType,
  STRING_TYPE,
  typesOf,
  typesOutside,
  UNKNOWN,
  unionOf,
  withNull,
  withoutNull,
} from "./schema-types.js";
import type { Template } from "./template.js";
import { arrayType, containsUnknown, numericResult, objectType, typeOfLiteral } from "./check-types.js";

export interface TypeEnv {
  /** The schema of each root that may be read here; a root not listed (or undefined) is unavailable. */
  roots: { [root: string]: JsonSchema | undefined };
  /** Targets of `$ref: "#/$defs/<name>"`. */
  defs?: { [name: string]: JsonSchema };
  /** Why a root is unavailable, used in its problem, e.g. `{ input: "the process declares no input_schema" }`. */
  rootNotes?: { [root: string]: string };
  /**
   * `root.name` answered without building the root's whole type (the `outputs` root has a
   * property per task: building it for every place was quadratic in the task count). Must
   * agree with propertyType on `roots[root]`; undefined for roots it does not answer.
   */
  rootProperty?: (root: string, name: string, subject: string) => Lookup | undefined;
}

export interface CheckProblem {
  /** The reason followed by the quoted source with a caret, when the position is known. */
  message: string;
  /** Offset into the expression or template text. */
  position?: number;
  /** The message without the quote. */
  reason?: string;
}

export interface CheckResult {
  type: JsonSchema;
  problems: CheckProblem[];
}

interface Context {
  env: TypeEnv;
  defs: Defs;
  source: string | undefined;
  locals: Array<{ name: string; type: JsonSchema }>;
  problems: CheckProblem[];
}

/** The inferred type of `expr` and every problem found. `source` defaults to the text it was parsed from. */
export function checkExpression(expr: Expr, env: TypeEnv, source: string | undefined = sourceOf(expr)): CheckResult {
  const ctx: Context = { env, defs: env.defs, source, locals: [], problems: [] };
  const type = infer(expr, ctx);
  return { type, problems: ctx.problems };
}

/** Like checkExpression, plus the rule that a switch `case` must be boolean (never null). */
export function checkCondition(expr: Expr, env: TypeEnv, source: string | undefined = sourceOf(expr)): CheckResult {
  const result = checkExpression(expr, env, source);
  const types = typesOf(result.type, env.defs);
  if (types !== null && (types.size !== 1 || !types.has("boolean"))) {
    const hint = admits(types, "boolean") ? `, e.g. (${sourceText(expr, source)}) ?? false` : "";
    const got = describeType(result.type, env.defs);
    result.problems.push(
      problem(
        source,
        expr.start,
        `case must be a boolean expression, got ${got} at ${expr.start}, expected true or false${hint}`,
      ),
    );
  }
  return result;
}

/** The type of a template's value (string unless `$:`); interpolating a value that may be null is a problem. */
export function checkTemplate(template: Template, env: TypeEnv): CheckResult {
  switch (template.kind) {
    case "literal":
      return { type: STRING_TYPE, problems: [] };
    case "expr":
      return checkExpression(template.expr, env);
    case "interpolation": {
      const problems: CheckProblem[] = [];
      for (const part of template.parts) {
        if (typeof part === "string") continue;
        const result = checkExpression(part.expr, env);
        problems.push(...result.problems);
        if (mayBeNull(result.type, env.defs)) {
          const got = describeType(result.type, env.defs);
          const reason = `interpolating ${part.source}, which may be null (${got}), at ${part.offset}, expected a value that is never null: add a default with ??, e.g. \${ ${part.source} ?? "" }`;
          problems.push(problem(sourceOf(part.expr), part.offset, reason));
        }
      }
      return { type: STRING_TYPE, problems };
    }
  }
}

function problem(source: string | undefined, position: number, reason: string): CheckProblem {
  return { message: withQuote(reason, source, position), position, reason };
}

function report(ctx: Context, position: number, what: string, expected: string): void {
  ctx.problems.push(problem(ctx.source, position, `${what} at ${position}, ${expected}`));
}

function sourceText(expr: Expr, source: string | undefined): string {
  return source === undefined ? "the value" : source.slice(expr.start, expr.end);
}

/** A problem when the value's known types include none of `allowed` (or only null). */
function expect(
  ctx: Context,
  node: Expr,
  type: JsonSchema,
  allowed: JsonType[],
  what: (got: string) => string,
  expected: string,
): void {
  const types = typesOf(type, ctx.defs);
  if (types === null) return;
  const valid = [...types].some((t) => t !== "null" && typesOutside(new Set([t]), allowed).length === 0);
  if (!valid) report(ctx, node.start, what(describeType(type, ctx.defs)), expected);
}

function infer(node: Expr, ctx: Context): JsonSchema {
  switch (node.kind) {
    case "literal":
      return typeOfLiteral(node.value);
    case "array":
      return arrayType(node.items.map((item) => infer(item, ctx)));
    case "object": {
      const properties: { [key: string]: JsonSchema } = {};
      for (const entry of node.entries) properties[entry.key] = infer(entry.value, ctx);
      return objectType(properties);
    }
    case "identifier":
      return inferIdentifier(node, ctx);
    case "member": {
      const direct = rootMember(ctx, node.object, node.property, node.propertyStart);
      if (direct !== undefined) return direct;
      const target = infer(node.object, ctx);
      if (refuseUnknownRead(ctx, target, node.object, `.${node.property}`, node.propertyStart)) return ALREADY_REPORTED;
      const lookup = propertyType(target, node.property, ctx.defs, sourceText(node.object, ctx.source));
      if (!lookup.problem) return lookup.type;
      report(ctx, node.propertyStart, lookup.problem.what, lookup.problem.expected);
      return ALREADY_REPORTED;
    }
    case "index":
      return inferIndex(node, ctx);
    case "unary": {
      const operand = infer(node.operand, ctx);
      if (node.op === "!") {
        expect(ctx, node.operand, operand, ["boolean"], (got) => `"!" applied to ${got}`, "expected a boolean");
        return BOOLEAN_TYPE;
      }
      expect(
        ctx,
        node.operand,
        operand,
        ["number"],
        (got) => `unary "${node.op}" applied to ${got}`,
        "expected a number",
      );
      return numericResult(operand, INTEGER_TYPE, ctx.defs);
    }
    case "binary":
      return inferBinary(node, ctx);
    case "conditional": {
      const test = infer(node.test, ctx);
      expect(ctx, node.test, test, ["boolean"], (got) => `the condition of "? :" is ${got}`, "expected a boolean");
      return unionOf([infer(node.consequent, ctx), infer(node.alternate, ctx)]);
    }
    case "call": {
      const args = node.args.map((arg) => infer(arg, ctx));
      const typing = BUILTINS[node.name].type(args, ctx.defs);
      for (const p of typing.problems) report(ctx, node.args[p.arg]?.start ?? node.start, p.what, p.expected);
      return typing.type;
    }
    case "map": {
      const list = infer(node.list, ctx);
      expect(ctx, node.list, list, ["array"], (got) => `map() over ${got}`, "expected an array");
      const [itemName, indexName] = node.params;
      ctx.locals.push({ name: itemName, type: elementType(list, ctx.defs) });
      if (indexName !== undefined) ctx.locals.push({ name: indexName, type: INTEGER_TYPE });
      const body = infer(node.body, ctx);
      ctx.locals.length -= indexName === undefined ? 1 : 2;
      const result: JsonSchema = Object.keys(body).length === 0 ? { type: "array" } : { type: "array", items: body };
      return mayBeNull(list, ctx.defs) ? withNull(result, ctx.defs) : result;
    }
  }
}

/** `root.name` through env.rootProperty when `object` is such a root (not shadowed by a lambda parameter). */
function rootMember(ctx: Context, object: Expr, name: string, position: number): JsonSchema | undefined {
  if (object.kind !== "identifier" || ctx.env.rootProperty === undefined) return undefined;
  if (ctx.locals.some((l) => l.name === object.name)) return undefined;
  const lookup = ctx.env.rootProperty(object.name, name, object.name);
  if (lookup === undefined) return undefined;
  if (!lookup.problem) return lookup.type;
  report(ctx, position, lookup.problem.what, lookup.problem.expected);
  return ALREADY_REPORTED;
}

function inferIdentifier(node: Extract<Expr, { kind: "identifier" }>, ctx: Context): JsonSchema {
  for (let i = ctx.locals.length - 1; i >= 0; i--) if (ctx.locals[i].name === node.name) return ctx.locals[i].type;
  const schema = Object.hasOwn(ctx.env.roots, node.name) ? ctx.env.roots[node.name] : undefined;
  if (schema !== undefined) return schema;
  // Read descriptors, not values: a root may be a getter that builds a large type.
  const available = Object.keys(ctx.env.roots).filter((root) => {
    const d = Object.getOwnPropertyDescriptor(ctx.env.roots, root);
    return d?.get !== undefined || d?.value !== undefined;
  });
  const note =
    ctx.env.rootNotes && Object.hasOwn(ctx.env.rootNotes, node.name) ? `: ${ctx.env.rootNotes[node.name]}` : "";
  const expected =
    available.length > 0
      ? `expected one of the available roots: ${available.join(", ")}`
      : "expected no root: none is available here";
  const what = note ? `root "${node.name}" is not available here${note}` : `unknown root "${node.name}"`;
  report(ctx, node.start, what, expected);
  return ALREADY_REPORTED;
}

/**
 * The unknown type of a value whose problem was already reported (unknown root, refused read):
 * reads into it are not reported again, so one mistake is one problem.
 */
const ALREADY_REPORTED: JsonSchema = Object.freeze({}) as JsonSchema;

/**
 * docs/language.md "What the checker refuses": `{}` "can be passed on but not read into". Reading a member or index of a value
 * whose type is unknown (or a union with an unknown member) is a problem; the result is
 * unknown so one missing schema is reported once, not at every step of a longer path.
 */
function refuseUnknownRead(ctx: Context, target: JsonSchema, object: Expr, access: string, position: number): boolean {
  if (target === ALREADY_REPORTED) return true;
  if (!containsUnknown(target, ctx.defs, 0)) return false;
  const subject = sourceText(object, ctx.source);
  report(
    ctx,
    position,
    `cannot read "${access}" of ${subject}: its type is unknown ({})`,
    `expected a value with a declared schema: declare the schema that types ${subject} (result_schema on the task that produces it, input_schema for input, or a schema with properties/items) to read into it; passing the whole value on is fine`,
  );
  return true;
}

function inferIndex(node: Extract<Expr, { kind: "index" }>, ctx: Context): JsonSchema {
  if (node.index.kind === "literal" && typeof node.index.value === "string") {
    const direct = rootMember(ctx, node.object, node.index.value, node.index.start);
    if (direct !== undefined) return direct;
  }
  const target = infer(node.object, ctx);
  const index = infer(node.index, ctx);
  const subject = sourceText(node.object, ctx.source);
  if (refuseUnknownRead(ctx, target, node.object, `[${sourceText(node.index, ctx.source)}]`, node.index.start))
    return ALREADY_REPORTED;
  if (node.index.kind === "literal" && typeof node.index.value === "string") {
    const lookup = propertyType(target, node.index.value, ctx.defs, subject);
    if (!lookup.problem) return lookup.type;
    report(ctx, node.index.start, lookup.problem.what, lookup.problem.expected);
    return ALREADY_REPORTED;
  }
  const targetTypes = typesOf(target, ctx.defs);
  if (targetTypes === null) return UNKNOWN;
  const canArray = targetTypes.has("array");
  const canObject = targetTypes.has("object");
  if (!canArray && !canObject) {
    if (targetTypes.size === 1 && targetTypes.has("null")) return NULL_TYPE;
    report(
      ctx,
      node.index.start,
      `cannot index ${subject}, which is ${describeType(target, ctx.defs)}`,
      "expected an array or an object",
    );
    return ALREADY_REPORTED;
  }
  if (canArray && !canObject) {
    expect(ctx, node.index, index, ["number"], (got) => `array index is ${got}`, "expected a number");
    const lookup = itemType(target, ctx.defs, subject);
    return lookup.type;
  }
  if (canObject && !canArray)
    expect(ctx, node.index, index, ["string"], (got) => `object key is ${got}`, "expected a string");
  return UNKNOWN;
}

function inferBinary(node: Extract<Expr, { kind: "binary" }>, ctx: Context): JsonSchema {
  const { op } = node;
  const left = infer(node.left, ctx);
  const right = infer(node.right, ctx);
  const defs = ctx.defs;
  switch (op) {
    case "==":
    case "!=": {
      const l = typesOf(left, defs);
      const r = typesOf(right, defs);
      const nullOnly = (t: Set<JsonType>) => t.size === 1 && t.has("null");
      if (l !== null && r !== null && !nullOnly(l) && !nullOnly(r) && ![...l].some((t) => admits(r, t))) {
        const outcome = op === "==" ? "always false" : "always true";
        report(
          ctx,
          node.opStart,
          `"${op}" compares ${describeType(left, defs)} with ${describeType(right, defs)}, which is ${outcome}`,
          'expected operands of the same type (values are never converted: 1 == "1" is false)',
        );
      }
      return BOOLEAN_TYPE;
    }
    case "&&":
    case "||":
      expect(ctx, node.left, left, ["boolean"], (got) => `left side of "${op}" is ${got}`, "expected a boolean");
      expect(ctx, node.right, right, ["boolean"], (got) => `right side of "${op}" is ${got}`, "expected a boolean");
      return BOOLEAN_TYPE;
    case "??":
      return unionOf([withoutNull(left, defs), right]);
    case "+":
    case "<":
    case "<=":
    case ">":
    case ">=": {
      const l = typesOf(left, defs);
      const r = typesOf(right, defs);
      const numeric = (l === null || admits(l, "number")) && (r === null || admits(r, "number"));
      const textual = (l === null || l.has("string")) && (r === null || r.has("string"));
      if (!numeric && !textual) {
        const expected =
          op === "+"
            ? "expected two numbers (to add) or two strings (to concatenate)"
            : "expected two numbers or two strings";
        report(
          ctx,
          node.opStart,
          `"${op}" applied to ${describeType(left, defs)} and ${describeType(right, defs)}`,
          expected,
        );
      }
      if (op !== "+") return BOOLEAN_TYPE;
      if (l === null && r === null) return UNKNOWN;
      return unionOf([numeric ? numericResult(left, right, defs) : undefined, textual ? STRING_TYPE : undefined]);
    }
    default:
      expect(ctx, node.left, left, ["number"], (got) => `left side of "${op}" is ${got}`, "expected a number");
      expect(ctx, node.right, right, ["number"], (got) => `right side of "${op}" is ${got}`, "expected a number");
      return op === "/" ? NUMBER_TYPE : numericResult(left, right, defs);
  }
}
