export type { BinaryOperator, Expr, UnaryOperator } from "./ast.js";
export { sourceOf } from "./ast.js";
export { BUILTINS, type Builtin, type BuiltinTyping, NOW_KEY } from "./builtins.js";
export {
  type CheckProblem,
  type CheckResult,
  checkCondition,
  checkExpression,
  checkTemplate,
  type TypeEnv,
} from "./check.js";
export { arrayType, objectType, typeOfLiteral } from "./check-types.js";
export {
  DEFAULT_EVAL_LIMITS,
  type EvalBudget,
  type EvalLimits,
  evalBudget,
  jsonTextSize,
  LIMITS_KEY,
  limitsIn,
  scopeBudget,
} from "./budget.js";
export { type EvalLimitKind, ExprLimitError, ExprRuntimeError, ExprSyntaxError, ShapeError } from "./errors.js";
export { evaluate, type Scope } from "./evaluate.js";
export * from "./json.js";
export { JSON_STEP_CHARS, parseWrittenJsonInSteps } from "./json-steps.js";
export { FUNCTION_NAMES, parseExpression } from "./parser.js";
export { joinIndex, joinKey } from "./path.js";
export {
  type Defs,
  describeType,
  elementType,
  itemType,
  type JsonSchema,
  type JsonType,
  type Lookup,
  mayBeNull,
  propertyType,
  resolveSchema,
  schemaSize,
  typesOf,
  unionOf,
  unknownProperty,
  withNull,
  withoutNull,
} from "./schema-types.js";
export { type CompiledShape, compileShape, evaluateShape } from "./shape.js";
export { checkShape, type ShapeProblem } from "./shape-check.js";
export { quoteSource } from "./source-quote.js";
export { evaluateTemplate, parseTemplate, type Template, type TemplateExpr } from "./template.js";
export { numberText } from "./numbers.js";
export { deepEqual, renderValue } from "./values.js";
