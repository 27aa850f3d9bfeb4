// Over 300 lines on purpose: a recursive-descent parser, one function per precedence level, each
// calling the next; the levels are only readable together.
import { type BinaryExpr, type BinaryOperator, type Expr, registerSource } from "./ast.js";
import { BUILTINS, isBuiltin } from "./builtins.js";
import { ExprRuntimeError, ExprSyntaxError } from "./errors.js";
import { describeToken, type Token, tokenize } from "./lexer.js";
import { numberFromText } from "./numbers.js";
import type { Json } from "./json.js";

// Higher binds tighter. `??` is tightest and may not be mixed with any other binary operator
// without parentheses (docs/language.md "Grammar"); the ternary sits below all of these.
const PRECEDENCE: { [op: string]: number } = {
  "||": 1,
  "&&": 2,
  "==": 3,
  "!=": 3,
  "<": 3,
  "<=": 3,
  ">": 3,
  ">=": 3,
  "+": 4,
  "-": 4,
  "*": 5,
  "/": 5,
  "%": 5,
  "??": 6,
};

const KEYWORDS: { [word: string]: true | false | null } = { true: true, false: false, null: null };

const MAX_DEPTH = 200;

export const FUNCTION_NAMES: readonly string[] = [...Object.keys(BUILTINS), "map"].sort();

/** Parses a whole expression (a switch `case`, or the text after `$:`). Throws ExprSyntaxError. */
export function parseExpression(source: string): Expr {
  return parseExpressionIn(source, 0, source.length);
}

/**
 * Parses `source.slice(from, to)` as one expression; node offsets and error positions are
 * offsets into the whole `source` (templates embed expressions).
 */
export function parseExpressionIn(source: string, from: number, to: number): Expr {
  const parser = new Parser(source, tokenize(source, from, to));
  const expr = parser.parseWhole();
  registerSource(expr, source);
  return expr;
}

class Parser {
  private pos = 0;
  private depth = 0;
  private readonly parenthesized = new WeakSet<Expr>();

  constructor(
    private readonly source: string,
    private readonly tokens: Token[],
  ) {}

  parseWhole(): Expr {
    const expr = this.parseConditional();
    const next = this.peek();
    if (next.kind !== "eof") this.fail(next, "an operator or the end of the expression");
    const deepest = findTooDeep(expr);
    if (deepest !== undefined) this.tooDeep(deepest.start);
    return expr;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)];
  }

  private next(): Token {
    const token = this.tokens[this.pos];
    if (this.pos < this.tokens.length - 1) this.pos++;
    return token;
  }

  private isPunct(value: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === "punct" && t.value === value;
  }

  private expectPunct(value: string, expected?: string): Token {
    if (!this.isPunct(value)) this.fail(this.peek(), expected ?? `"${value}"`);
    return this.next();
  }

  private fail(token: Token, expected: string): never {
    throw new ExprSyntaxError(
      `unexpected ${describeToken(token)} at ${token.start}, expected ${expected}`,
      this.source,
      token.start,
    );
  }

  private tooDeep(position: number): never {
    this.error(
      `expression nested too deeply at ${position}, expected at most ${MAX_DEPTH} levels of nesting`,
      position,
    );
  }

  private error(reason: string, position: number): never {
    throw new ExprSyntaxError(reason, this.source, position);
  }

  private parseConditional(): Expr {
    // Every nesting (parentheses, brackets, arguments, branches) passes here, so this bounds the
    // recursion of the parser, the evaluator and the checker alike.
    if (++this.depth > MAX_DEPTH) this.tooDeep(this.peek().start);
    try {
      return this.parseConditionalBody();
    } finally {
      this.depth--;
    }
  }

  private parseConditionalBody(): Expr {
    const test = this.parseBinary(1);
    if (!this.isPunct("?")) return test;
    this.next();
    const consequent = this.parseConditional();
    this.expectPunct(":", '":" of the conditional c ? a : b');
    const alternate = this.parseConditional();
    return { kind: "conditional", test, consequent, alternate, start: test.start, end: alternate.end };
  }

  private parseBinary(minPrecedence: number): Expr {
    let left = this.parseUnary();
    for (;;) {
      const token = this.peek();
      const precedence = token.kind === "punct" ? PRECEDENCE[token.value] : undefined;
      if (precedence === undefined || precedence < minPrecedence) return left;
      this.next();
      const right = this.parseBinary(precedence + 1);
      const node: BinaryExpr = {
        kind: "binary",
        op: token.value as BinaryOperator,
        left,
        right,
        opStart: token.start,
        start: left.start,
        end: right.end,
      };
      this.checkCoalesceMixing(node);
      left = node;
    }
  }

  private checkCoalesceMixing(node: BinaryExpr): void {
    for (const side of [node.left, node.right]) {
      if (side.kind !== "binary" || this.parenthesized.has(side)) continue;
      if ((node.op === "??") === (side.op === "??")) continue;
      const [a, b] = side.opStart < node.opStart ? [side.op, node.op] : [node.op, side.op];
      const example =
        side === node.left
          ? `(${this.text(side)}) ${node.op} ${this.text(node.right)}`
          : `${this.text(node.left)} ${node.op} (${this.text(side)})`;
      this.error(
        `"${a}" and "${b}" cannot be mixed without parentheses at ${Math.max(side.opStart, node.opStart)}, add parentheses to say which applies first, e.g. ${example}`,
        Math.max(side.opStart, node.opStart),
      );
    }
  }

  private text(expr: Expr): string {
    return this.source.slice(expr.start, expr.end);
  }

  private parseUnary(): Expr {
    const token = this.peek();
    if (token.kind === "punct" && (token.value === "!" || token.value === "-" || token.value === "+")) {
      this.next();
      if (++this.depth > MAX_DEPTH) this.tooDeep(token.start);
      const operand = this.parseUnary();
      this.depth--;
      return { kind: "unary", op: token.value, operand, start: token.start, end: operand.end };
    }
    return this.parsePostfix(this.parsePrimary());
  }

  private parsePostfix(expr: Expr): Expr {
    for (;;) {
      if (this.isPunct(".")) {
        this.next();
        const name = this.next();
        if (name.kind !== "identifier")
          this.fail(name, 'a property name after "." (use ["…"] for other keys, [0] for array elements)');
        expr = {
          kind: "member",
          object: expr,
          property: name.value,
          propertyStart: name.start,
          start: expr.start,
          end: name.end,
        };
      } else if (this.isPunct("[")) {
        this.next();
        const index = this.parseConditional();
        const close = this.expectPunct("]", '"]" closing the index');
        expr = { kind: "index", object: expr, index, start: expr.start, end: close.end };
      } else {
        return expr;
      }
    }
  }

  private parsePrimary(): Expr {
    const token = this.next();
    switch (token.kind) {
      case "number": {
        let value: Json;
        try {
          value = numberFromText(token.value);
        } catch (error) {
          if (!(error instanceof ExprRuntimeError)) throw error;
          this.error(
            `number ${token.value} at ${token.start} is out of range, expected a decimal exponent within ±9e15`,
            token.start,
          );
        }
        return { kind: "literal", value, start: token.start, end: token.end };
      }
      case "string":
        return { kind: "literal", value: token.value, start: token.start, end: token.end };
      case "identifier":
        if (Object.hasOwn(KEYWORDS, token.value))
          return { kind: "literal", value: KEYWORDS[token.value], start: token.start, end: token.end };
        if (this.isPunct("(")) return this.parseCall(token);
        return { kind: "identifier", name: token.value, start: token.start, end: token.end };
      case "punct":
        if (token.value === "(") {
          const inner = this.parseConditional();
          this.expectPunct(")", '")" closing the parenthesis');
          this.parenthesized.add(inner);
          return inner;
        }
        if (token.value === "[") return this.parseArray(token);
        if (token.value === "{") return this.parseObject(token);
        break;
    }
    return this.fail(token, "an expression");
  }

  private parseArray(open: Token): Expr {
    const items: Expr[] = [];
    while (!this.isPunct("]")) {
      items.push(this.parseConditional());
      if (!this.isPunct(",")) break;
      this.next();
    }
    const close = this.expectPunct("]", '"," or "]" in the array');
    return { kind: "array", items, start: open.start, end: close.end };
  }

  private parseObject(open: Token): Expr {
    const entries: Array<{ key: string; keyStart: number; value: Expr }> = [];
    const seen = new Set<string>();
    while (!this.isPunct("}")) {
      const key = this.next();
      if (key.kind !== "identifier" && key.kind !== "string")
        this.fail(key, 'a key (a name or a quoted string) or "}"');
      if (seen.has(key.value))
        this.error(`duplicate key "${key.value}" at ${key.start}, expected each key once in an object`, key.start);
      seen.add(key.value);
      this.expectPunct(":", `":" after the key "${key.value}"`);
      entries.push({ key: key.value, keyStart: key.start, value: this.parseConditional() });
      if (!this.isPunct(",")) break;
      this.next();
    }
    const close = this.expectPunct("}", '"," or "}" in the object');
    return { kind: "object", entries, start: open.start, end: close.end };
  }

  private parseCall(name: Token): Expr {
    if (name.value === "map") return this.parseMap(name);
    if (!isBuiltin(name.value))
      this.error(
        `unknown function "${name.value}" at ${name.start}, expected one of ${FUNCTION_NAMES.join(", ")}`,
        name.start,
      );
    this.next();
    const args: Expr[] = [];
    while (!this.isPunct(")")) {
      args.push(this.parseConditional());
      if (!this.isPunct(",")) break;
      this.next();
    }
    const close = this.expectPunct(")", `"," or ")" in the call of ${name.value}()`);
    const builtin = BUILTINS[name.value];
    if (args.length !== builtin.arity) {
      const plural = builtin.arity === 1 ? "argument" : "arguments";
      this.error(
        `${name.value}() called with ${args.length} at ${name.start}, expected ${builtin.arity} ${plural}: ${builtin.signature}`,
        name.start,
      );
    }
    return { kind: "call", name: name.value, args, start: name.start, end: close.end };
  }

  private parseMap(name: Token): Expr {
    this.next();
    const list = this.parseConditional();
    this.expectPunct(",", '"," and a function such as x => x.id after the list in map()');
    const params = this.parseLambdaParams();
    const body = this.parseConditional();
    const close = this.expectPunct(")", '")" closing map()');
    return { kind: "map", list, params, body, start: name.start, end: close.end };
  }

  private parseLambdaParams(): [string] | [string, string] {
    const expected = "a function such as x => x.id or (x, i) => i as the second argument of map()";
    const params: string[] = [];
    const param = () => {
      const t = this.next();
      if (t.kind !== "identifier" || Object.hasOwn(KEYWORDS, t.value)) this.fail(t, `a parameter name in ${expected}`);
      if (params.includes(t.value))
        this.error(`duplicate parameter "${t.value}" at ${t.start}, expected two different names`, t.start);
      params.push(t.value);
    };
    if (this.isPunct("(")) {
      this.next();
      param();
      if (this.isPunct(",")) {
        this.next();
        param();
      }
      this.expectPunct(")", '")" after at most two parameters (element, index)');
    } else if (this.peek().kind === "identifier") {
      param();
    } else {
      this.fail(this.peek(), expected);
    }
    this.expectPunct("=>", `"=>" in ${expected}`);
    return params as [string] | [string, string];
  }
}

function childrenOf(e: Expr): Expr[] {
  switch (e.kind) {
    case "literal":
    case "identifier":
      return [];
    case "array":
      return e.items;
    case "object":
      return e.entries.map((entry) => entry.value);
    case "member":
      return [e.object];
    case "index":
      return [e.object, e.index];
    case "unary":
      return [e.operand];
    case "binary":
      return [e.left, e.right];
    case "conditional":
      return [e.test, e.consequent, e.alternate];
    case "call":
      return e.args;
    case "map":
      return [e.list, e.body];
  }
}

/**
 * The first node deeper than MAX_DEPTH, found without recursion. Left-associative chains
 * (`1 + 1 + … + 1`) are parsed by a loop, so only the finished tree shows how deep the
 * evaluator and the checker would recurse.
 */
function findTooDeep(root: Expr): Expr | undefined {
  const stack: Array<[Expr, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_DEPTH) return node;
    for (const child of childrenOf(node)) stack.push([child, depth + 1]);
  }
  return undefined;
}
