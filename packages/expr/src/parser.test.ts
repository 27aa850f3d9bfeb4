// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" in plain strings is the template syntax under test
import { describe, expect, it } from "vitest";
import { type Expr, sourceOf } from "./ast.js";
import { ExprSyntaxError } from "./errors.js";
import { isLosslessNumber } from "./json.js";
import { parseExpression, parseExpressionIn } from "./parser.js";

/** A parenthesised rendering of the tree, to read precedence and associativity at a glance. */
function show(e: Expr): string {
  switch (e.kind) {
    case "literal":
      return JSON.stringify(isLosslessNumber(e.value) ? e.value.value : e.value);
    case "identifier":
      return e.name;
    case "array":
      return `[${e.items.map(show).join(", ")}]`;
    case "object":
      return `{${e.entries.map((x) => `${x.key}: ${show(x.value)}`).join(", ")}}`;
    case "member":
      return `${show(e.object)}.${e.property}`;
    case "index":
      return `${show(e.object)}[${show(e.index)}]`;
    case "unary":
      return `(${e.op}${show(e.operand)})`;
    case "binary":
      return `(${show(e.left)} ${e.op} ${show(e.right)})`;
    case "conditional":
      return `(${show(e.test)} ? ${show(e.consequent)} : ${show(e.alternate)})`;
    case "call":
      return `${e.name}(${e.args.map(show).join(", ")})`;
    case "map":
      return `map(${show(e.list)}, (${e.params.join(", ")}) => ${show(e.body)})`;
  }
}

const parsed = (source: string) => show(parseExpression(source));

function syntaxError(source: string): ExprSyntaxError {
  try {
    parseExpression(source);
  } catch (error) {
    if (error instanceof ExprSyntaxError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(source)} to be rejected`);
}

describe("parseExpression: literals", () => {
  it("reads numbers, strings, booleans and null", () => {
    expect(parsed("42")).toBe("42");
    expect(parsed("1.50")).toBe("1.5");
    expect(parsed("'a'")).toBe('"a"');
    expect(parsed('"b"')).toBe('"b"');
    expect(parsed("true")).toBe("true");
    expect(parsed("false")).toBe("false");
    expect(parsed("null")).toBe("null");
  });

  it("keeps a big integer literal exact as a LosslessNumber", () => {
    const e = parseExpression("12345678901234567890");
    expect(e.kind === "literal" && isLosslessNumber(e.value) && e.value.value).toBe("12345678901234567890");
  });

  it("reads arrays and objects with name or string keys and trailing commas", () => {
    expect(parsed("[1, 'x', [true],]")).toBe('[1, "x", [true]]');
    expect(parsed("{a: 1, 'b-c': input.x,}")).toBe("{a: 1, b-c: input.x}");
    expect(parsed("{}")).toBe("{}");
    expect(parsed("[]")).toBe("[]");
  });

  it("rejects a duplicate object key", () => {
    expect(syntaxError("{a: 1, a: 2}").reason).toBe('duplicate key "a" at 7, expected each key once in an object');
  });
});

describe("parseExpression: paths", () => {
  it("reads dotted, bracketed, numeric and computed access", () => {
    expect(parsed('input.a["b-c"][0][input.i]')).toBe('input.a["b-c"][0][input.i]');
  });

  it("allows keywords as property names after a dot", () => {
    expect(parsed("self.null.true")).toBe("self.null.true");
  });

  it("applies postfix access to any primary", () => {
    expect(parsed("(input).a")).toBe("input.a");
    expect(parsed("[1, 2][0]")).toBe("[1, 2][0]");
    expect(parsed("{a: 1}.a")).toBe("{a: 1}.a");
  });

  it("asks for a property name after a dot", () => {
    expect(syntaxError("input.0").reason).toMatch(/^unexpected number 0 at 6, expected a property name after "."/);
  });
});

describe("parseExpression: precedence and associativity", () => {
  it.each([
    ["1 + 2 * 3", "(1 + (2 * 3))"],
    ["1 * 2 + 3", "((1 * 2) + 3)"],
    ["1 - 2 - 3", "((1 - 2) - 3)"],
    ["8 / 4 / 2", "((8 / 4) / 2)"],
    ["7 % 4 * 2", "((7 % 4) * 2)"],
    ["1 + 2 < 4", "((1 + 2) < 4)"],
    ["a < b == c", "((a < b) == c)"],
    ["a == b && c != d", "((a == b) && (c != d))"],
    ["a || b && c", "(a || (b && c))"],
    ["a && b || c", "((a && b) || c)"],
    ["-a * b", "((-a) * b)"],
    ["!a.b", "(!a.b)"],
    ["- -a", "(-(-a))"],
    ["+a", "(+a)"],
    ["!a == b", "((!a) == b)"],
    ["a ?? b ?? c", "((a ?? b) ?? c)"],
    ["(a ?? b) + c", "((a ?? b) + c)"],
    ["a + (b ?? c)", "(a + (b ?? c))"],
    ["a ?? -b", "(a ?? (-b))"],
    ["a ? b : c", "(a ? b : c)"],
    ["a ? b : c ? d : e", "(a ? b : (c ? d : e))"],
    ["a ? b ? c : d : e", "(a ? (b ? c : d) : e)"],
    ["a || b ? c + 1 : d", "((a || b) ? (c + 1) : d)"],
    ["a ?? b ? c : d", "((a ?? b) ? c : d)"],
    ["(1 + 2) * 3", "((1 + 2) * 3)"],
  ])("%s parses as %s", (source, tree) => {
    expect(parsed(source)).toBe(tree);
  });
});

describe("parseExpression: ?? mixing rule", () => {
  it.each([
    ["a ?? b + c", 7, '"??" and "+"', "(a ?? b) + c"],
    ["a + b ?? c", 6, '"+" and "??"', "a + (b ?? c)"],
    ["a ?? b == c", 7, '"??" and "=="', "(a ?? b) == c"],
    ["a && b ?? c", 7, '"&&" and "??"', "a && (b ?? c)"],
    ["a ?? b || c", 7, '"??" and "||"', "(a ?? b) || c"],
  ])("rejects %s and says to add parentheses", (source, position, pair, example) => {
    const error = syntaxError(source);
    expect(error.position).toBe(position);
    expect(error.reason).toContain(`${pair} cannot be mixed without parentheses at ${position}`);
    expect(error.reason).toContain("add parentheses");
    expect(error.reason, "the message should show a corrected form").toContain(example);
  });

  it("accepts the same expressions once parenthesised", () => {
    expect(() => parseExpression("(a ?? b) + c")).not.toThrow();
    expect(() => parseExpression("a + (b ?? c)")).not.toThrow();
    expect(() => parseExpression("(a && b) ?? c")).not.toThrow();
  });
});

describe("parseExpression: calls and map", () => {
  it("reads builtin calls", () => {
    expect(parsed("len(input.xs)")).toBe("len(input.xs)");
    expect(parsed("join(xs, ', ')")).toBe('join(xs, ", ")');
    expect(parsed("now_ms()")).toBe("now_ms()");
  });

  it("reads map with one or two lambda parameters", () => {
    expect(parsed("map(xs, x => x.id)")).toBe("map(xs, (x) => x.id)");
    expect(parsed("map(xs, (x) => x)")).toBe("map(xs, (x) => x)");
    expect(parsed("map(xs, (x, i) => i + 1)")).toBe("map(xs, (x, i) => (i + 1))");
    expect(parsed("map(map(xs, x => x.a), (y, i) => y ? i : 0)")).toBe(
      "map(map(xs, (x) => x.a), (y, i) => (y ? i : 0))",
    );
  });

  it("names the known functions when a function is unknown", () => {
    const error = syntaxError("input.a + foo(1)");
    expect(error.reason).toBe(
      'unknown function "foo" at 10, expected one of contains, join, len, lower, map, now_ms, upper',
    );
  });

  it("checks the number of arguments against the builtin table", () => {
    expect(syntaxError("len(a, b)").reason).toBe(
      "len() called with 2 at 0, expected 1 argument: len(string | array | object) → integer",
    );
    expect(syntaxError("now_ms(1)").reason).toContain("expected 0 arguments");
  });

  it("wants a lambda as the second argument of map", () => {
    expect(syntaxError("map(xs, 1)").reason).toContain("expected a function such as x => x.id");
    expect(syntaxError("map(xs, (x, x) => x)").reason).toBe(
      'duplicate parameter "x" at 12, expected two different names',
    );
    expect(syntaxError("map(xs, (a, b, c) => a)").reason).toContain('expected ")" after at most two parameters');
    expect(syntaxError("map(xs, null => 1)").reason).toContain("expected a parameter name");
  });

  it("does not accept a lambda outside map", () => {
    expect(syntaxError("x => x").reason).toBe(
      'unexpected "=>" at 2, expected an operator or the end of the expression',
    );
  });
});

describe("parseExpression: positions", () => {
  it("gives every node start and end offsets into the source", () => {
    const e = parseExpression("  input.items[0] + 2");
    expect(e).toMatchObject({ kind: "binary", start: 2, end: 20, opStart: 17 });
    if (e.kind !== "binary" || e.left.kind !== "index") throw new Error("shape");
    expect(e.left).toMatchObject({ start: 2, end: 16 });
    expect(e.left.object).toMatchObject({ kind: "member", start: 2, end: 13, propertyStart: 8 });
    expect(e.right).toMatchObject({ start: 19, end: 20 });
  });

  it("keeps offsets of an embedded expression relative to the whole text", () => {
    const text = "id=${ input.id }";
    const e = parseExpressionIn(text, 5, 15);
    expect(e).toMatchObject({ kind: "member", start: 6, end: 14 });
    expect(sourceOf(e), "errors found later must quote the whole template").toBe(text);
  });

  it("spans a parenthesised expression without the parentheses", () => {
    expect(parseExpression("(a)")).toMatchObject({ start: 1, end: 2 });
  });
});

describe("parseExpression: error messages", () => {
  it("says what was wrong and what was expected, then quotes the source with a caret", () => {
    const error = syntaxError("input.a + )");
    expect(error.message).toBe('unexpected ")" at 10, expected an expression\n  input.a + )\n            ^');
    expect(error.source).toBe("input.a + )");
    expect(error.position).toBe(10);
  });

  it.each([
    ["", "unexpected end of input at 0, expected an expression"],
    ["(1 + 2", 'unexpected end of input at 6, expected ")" closing the parenthesis'],
    ["a b", 'unexpected "b" at 2, expected an operator or the end of the expression'],
    ["a ? b", 'unexpected end of input at 5, expected ":" of the conditional c ? a : b'],
    ["[1 2]", 'unexpected number 2 at 3, expected "," or "]" in the array'],
    ["{a 1}", 'unexpected number 1 at 3, expected ":" after the key "a"'],
    ["{1: 2}", 'unexpected number 1 at 1, expected a key (a name or a quoted string) or "}"'],
    ["a[1", 'unexpected end of input at 3, expected "]" closing the index'],
    ["len(a", 'unexpected end of input at 5, expected "," or ")" in the call of len()'],
  ])("rejects %j: %s", (source, reason) => {
    expect(syntaxError(source).reason).toBe(reason);
  });
});

describe("parseExpression: nesting limit", () => {
  it("refuses absurdly deep nesting with a syntax error instead of overflowing the stack", () => {
    expect(syntaxError(`${"(".repeat(5000)}1${")".repeat(5000)}`).reason).toMatch(
      /^expression nested too deeply at \d+, expected at most 200 levels/,
    );
    expect(syntaxError(`${"!".repeat(5000)}true`).reason).toContain("nested too deeply");
    expect(
      syntaxError(Array(5000).fill("1").join(" + ")).reason,
      "left-deep chains count too: the evaluator recurses on them",
    ).toContain("nested too deeply");
  });

  it("accepts realistic nesting", () => {
    expect(() => parseExpression(Array(150).fill("1").join(" + "))).not.toThrow();
    expect(() => parseExpression(`${"[".repeat(60)}${"]".repeat(60)}`)).not.toThrow();
  });
});

describe("number literals past decimal.js's range", () => {
  it("are a syntax error at the literal", () => {
    expect(() => parseExpression("1 + 1e99999999999999999")).toThrow(
      "number 1e99999999999999999 at 4 is out of range, expected a decimal exponent within ±9e15",
    );
  });
});
