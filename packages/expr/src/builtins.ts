// The single table of functions an expression may call (docs/language.md "Builtins"). The parser, the
// evaluator and the checker all read this table; `map` is syntax (it takes a lambda), not a builtin.
import { checkLength, type EvalBudget, step, stepFor } from "./budget.js";
import { ExprRuntimeError } from "./errors.js";
import type { Json } from "./json.js";
import { isJsonNumber } from "./numbers.js";
import {
  BOOLEAN_TYPE,
  type Defs,
  describeType,
  INTEGER_TYPE,
  type JsonSchema,
  type JsonType,
  mayBeNull,
  STRING_TYPE,
  typesOf,
  typesOutside,
  withNull,
} from "./schema-types.js";
import { deepEqual, describeValue, renderValue } from "./values.js";

/** The scope key holding the service clock in epoch milliseconds, read by `now_ms()`. */
export const NOW_KEY = "$now";

export interface BuiltinTyping {
  type: JsonSchema;
  /** Each reads `<what> at <position of the argument>, <expected>`. */
  problems: Array<{ arg: number; what: string; expected: string }>;
}

export interface Builtin {
  /** Exact number of arguments. */
  arity: number;
  /** Shown in docs and in messages, e.g. `len(string | array | object) → integer`. */
  signature: string;
  description: string;
  /** The typing rule: result type and argument problems from the argument types. */
  type(args: JsonSchema[], defs: Defs): BuiltinTyping;
  /**
   * Throws ExprRuntimeError (without position; the evaluator adds it) on bad arguments, and
   * ExprLimitError when the result would pass `budget`.
   */
  call(args: Json[], scope: { readonly [root: string]: Json | undefined }, budget: EvalBudget): Json;
}

function expectTypes(
  name: string,
  arg: number,
  schema: JsonSchema,
  allowed: JsonType[],
  label: string,
  defs: Defs,
): BuiltinTyping["problems"] {
  const types = typesOf(schema, defs);
  if (types === null) return [];
  const bad = typesOutside(types, allowed);
  const onlyNull = types.size > 0 && [...types].every((t) => t === "null");
  if (bad.length === 0 && !onlyNull) return [];
  return [
    { arg, what: `argument ${arg + 1} of ${name}() is ${describeType(schema, defs)}`, expected: `expected ${label}` },
  ];
}

/** `text`, or ExprLimitError if it is longer than the value size limit (case mapping can lengthen a string). */
function bounded(text: string, budget: EvalBudget, what: string): string {
  stepFor(budget, text.length);
  checkLength(budget, text.length, `the string returned by ${what}`);
  return text;
}

function fail(message: string): never {
  throw new ExprRuntimeError(message);
}

/** Null in the subject argument propagates: the result is null too, and typed nullable. */
const nullableLike = (subject: JsonSchema, result: JsonSchema, defs: Defs) =>
  mayBeNull(subject, defs) ? withNull(result, defs) : result;

export const BUILTINS: { readonly [name: string]: Builtin } = Object.freeze({
  len: {
    arity: 1,
    signature: "len(string | array | object) → integer",
    description:
      "Number of characters (Unicode code points) of a string, elements of an array, or keys of an object; null gives null.",
    type: ([x], defs) => ({
      type: nullableLike(x, INTEGER_TYPE, defs),
      problems: expectTypes("len", 0, x, ["string", "array", "object"], "a string, an array or an object", defs),
    }),
    call: ([x], _scope, budget) => {
      if (x === null) return null;
      if (typeof x === "string") {
        stepFor(budget, x.length);
        let n = 0;
        for (const _ of x) n++;
        return n;
      }
      if (Array.isArray(x)) return x.length;
      if (typeof x === "object" && !isJsonNumber(x)) {
        const keys = Object.keys(x).length;
        stepFor(budget, keys);
        return keys;
      }
      return fail(`len() expects a string, an array or an object, got ${describeValue(x)}`);
    },
  },
  lower: {
    arity: 1,
    signature: "lower(string) → string",
    description: "The string in lower case; null gives null.",
    type: ([x], defs) => ({
      type: nullableLike(x, STRING_TYPE, defs),
      problems: expectTypes("lower", 0, x, ["string"], "a string", defs),
    }),
    call: ([x], _scope, budget) =>
      x === null
        ? null
        : typeof x === "string"
          ? bounded(x.toLowerCase(), budget, "lower()")
          : fail(`lower() expects a string, got ${describeValue(x)}`),
  },
  upper: {
    arity: 1,
    signature: "upper(string) → string",
    description: "The string in upper case; null gives null.",
    type: ([x], defs) => ({
      type: nullableLike(x, STRING_TYPE, defs),
      problems: expectTypes("upper", 0, x, ["string"], "a string", defs),
    }),
    call: ([x], _scope, budget) =>
      x === null
        ? null
        : typeof x === "string"
          ? bounded(x.toUpperCase(), budget, "upper()")
          : fail(`upper() expects a string, got ${describeValue(x)}`),
  },
  contains: {
    arity: 2,
    signature: "contains(string | array | object, value) → boolean",
    description:
      "Substring test on a string, element test (by value) on an array, key test on an object; a null subject gives null.",
    type: ([subject, needle], defs) => {
      const problems = expectTypes(
        "contains",
        0,
        subject,
        ["string", "array", "object"],
        "a string, an array or an object",
        defs,
      );
      const types = typesOf(subject, defs);
      if (types !== null && !types.has("array"))
        problems.push(...expectTypes("contains", 1, needle, ["string"], "a string", defs));
      return { type: nullableLike(subject, BOOLEAN_TYPE, defs), problems };
    },
    call: ([subject, needle], _scope, budget) => {
      if (subject === null) return null;
      if (Array.isArray(subject)) {
        step(budget, subject.length);
        return subject.some((item) => deepEqual(item, needle, budget));
      }
      if (typeof subject === "string" || (typeof subject === "object" && !isJsonNumber(subject))) {
        if (typeof needle !== "string")
          return fail(
            `contains() expects a string as argument 2 when searching ${describeValue(subject)}, got ${describeValue(needle)}`,
          );
        if (typeof subject !== "string") return Object.hasOwn(subject, needle);
        stepFor(budget, subject.length + needle.length);
        return subject.includes(needle);
      }
      return fail(`contains() expects a string, an array or an object, got ${describeValue(subject)}`);
    },
  },
  join: {
    arity: 2,
    signature: "join(array, string) → string",
    description:
      "The elements rendered as in an interpolation (strings as is, numbers in decimal, others as JSON) and joined by the separator; a null array gives null.",
    type: ([list, separator], defs) => ({
      type: nullableLike(list, STRING_TYPE, defs),
      problems: [
        ...expectTypes("join", 0, list, ["array"], "an array", defs),
        ...expectTypes("join", 1, separator, ["string"], "a string", defs),
      ],
    }),
    call: ([list, separator], _scope, budget) => {
      if (typeof separator !== "string")
        return fail(`join() expects a string separator as argument 2, got ${describeValue(separator)}`);
      if (list === null) return null;
      if (!Array.isArray(list)) return fail(`join() expects an array as argument 1, got ${describeValue(list)}`);
      step(budget, list.length);
      // Measured part by part, before the parts are joined.
      let length = Math.max(0, list.length - 1) * separator.length;
      checkLength(budget, length, "the string built by join()");
      const parts = list.map((item) => {
        const part = renderValue(item, budget.limits.maxNumberDigits);
        stepFor(budget, part.length);
        length += part.length;
        checkLength(budget, length, "the string built by join()");
        return part;
      });
      return parts.join(separator);
    },
  },
  now_ms: {
    arity: 0,
    signature: "now_ms() → integer",
    description: `The service clock in epoch milliseconds (scope key "${NOW_KEY}", which follows the shifted test clock).`,
    type: () => ({ type: INTEGER_TYPE, problems: [] }),
    call: (_args, scope) => {
      const now = scope[NOW_KEY];
      if (!isJsonNumber(now))
        return fail(
          `now_ms() has no clock: the scope must carry "${NOW_KEY}" (epoch milliseconds from the service clock)`,
        );
      return now;
    },
  },
} satisfies { [name: string]: Builtin });

export function isBuiltin(name: string): boolean {
  return Object.hasOwn(BUILTINS, name);
}
