import { describe, expect, it } from "vitest";
import { ExprRuntimeError } from "./errors.js";
import { evaluate, type Scope } from "./evaluate.js";
import { isLosslessNumber, type Json, parseJson, stringifyJson } from "./json.js";
import { parseExpression } from "./parser.js";

const scope: Scope = {
  input: parseJson(`{
    "name": "Ada", "count": 3, "price": 0.1, "big": 12345678901234567890, "flag": true,
    "items": [{"id": "a", "qty": 2}, {"id": "b", "qty": 5}], "nested": {"k-v": {"deep": [10, 20]}},
    "nothing": null, "tags": ["x", "y"]
  }`),
  outputs: { first: { total: 7 } },
  self: { result: { ok: true }, status: 200 },
};

const ev = (source: string, s: Scope = scope): Json => evaluate(parseExpression(source), s);
const evText = (source: string, s: Scope = scope) => stringifyJson(ev(source, s));

function runtimeError(source: string, s: Scope = scope): ExprRuntimeError {
  try {
    ev(source, s);
  } catch (error) {
    if (error instanceof ExprRuntimeError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(source)} to fail`);
}

describe("evaluate: literals and paths", () => {
  it("evaluates literals, arrays and objects", () => {
    expect(ev("[1, 'a', true, null, {b: 2}]")).toEqual([1, "a", true, null, { b: 2 }]);
    expect(ev("{'a-b': 1, c: input.count}")).toEqual({ "a-b": 1, c: 3 });
  });

  it("reads roots and paths with dots, brackets, indexes and computed keys", () => {
    expect(ev("input.name")).toBe("Ada");
    expect(ev("input.items[1].id")).toBe("b");
    expect(ev('input.nested["k-v"].deep[0]')).toBe(10);
    expect(ev("input.items[input.count - 2].qty")).toBe(5);
    expect(ev("input['na' + 'me']")).toBe("Ada");
    expect(ev("outputs.first.total")).toBe(7);
    expect(ev("self.status")).toBe(200);
  });

  it("yields null for member access on null or a missing key, without throwing", () => {
    expect(ev("input.missing")).toBeNull();
    expect(ev("input.missing.deeper.still")).toBeNull();
    expect(ev("input.nothing.x")).toBeNull();
    expect(ev("input.nothing[0]")).toBeNull();
    expect(ev("input.missing['k']")).toBeNull();
    expect(ev("error.code"), "a root absent from the scope reads as null").toBeNull();
  });

  it("yields null for an index out of range, including negative and huge indexes", () => {
    expect(ev("input.tags[2]")).toBeNull();
    expect(ev("input.tags[-1]")).toBeNull();
    expect(ev("input.tags[99999999999999999999]")).toBeNull();
  });

  it("does not expose inherited object properties", () => {
    expect(ev("input.constructor")).toBeNull();
    expect(ev("input['__proto__']")).toBeNull();
    expect(ev("input.toString")).toBeNull();
  });

  it("fails on reading a property of a non-object", () => {
    const error = runtimeError("input.name.first");
    expect(error.code).toBe("engine.expression");
    expect(error.message).toBe(
      'cannot read property "first" of the string "Ada" at 11\n  input.name.first\n             ^',
    );
    expect(runtimeError("input.tags.x").reason).toBe('cannot read property "x" of an array at 11');
  });

  it("fails on a bad index type", () => {
    expect(runtimeError("input.tags['a']").reason).toBe('an array index must be an integer, got the string "a" at 11');
    expect(runtimeError("input.tags[0.5]").reason).toBe("an array index must be an integer, got the number 0.5 at 11");
    expect(runtimeError("input.nested[1]").reason).toBe(
      "a key must be a string to index an object, got the number 1 at 13",
    );
    expect(runtimeError("input.count[0]").reason).toContain("a key must be a string to index the number 3");
  });
});

describe("evaluate: exact decimals", () => {
  it("computes 0.1 + 0.2 as 0.3", () => {
    expect(ev("0.1 + 0.2")).toBe(0.3);
    expect(ev("0.1 + 0.2 == 0.3")).toBe(true);
    expect(ev("input.price * 3")).toBe(0.3);
  });

  it("keeps big integers exact through arithmetic", () => {
    expect(evText("12345678901234567890 + 1")).toBe("12345678901234567891");
    expect(evText("input.big * 10")).toBe("123456789012345678900");
    expect(isLosslessNumber(ev("input.big"))).toBe(true);
    expect(ev("input.big - 12345678901234567889")).toBe(1);
  });

  it("treats 1 and 1.0 as equal and keeps integer results integral", () => {
    expect(ev("1 == 1.0")).toBe(true);
    expect(ev("1.5 * 2")).toBe(3);
    expect(ev("[1, 2.0] == [1.0, 2]")).toBe(true);
  });

  it("divides and takes remainders on decimals", () => {
    expect(ev("7 / 2")).toBe(3.5);
    expect(ev("7 % 2")).toBe(1);
    expect(ev("7.5 % 2")).toBe(1.5);
    expect(ev("-7 % 2")).toBe(-1);
  });

  it("fails on division or remainder by zero", () => {
    const error = runtimeError("input.count / (input.count - 3)");
    expect(error.message).toBe("division by zero at 12\n  input.count / (input.count - 3)\n              ^");
    expect(runtimeError("1 % 0").reason).toBe("remainder by zero (%) at 2");
    expect(runtimeError("1 / 0.0").reason).toBe("division by zero at 2");
  });

  it("negates and applies unary plus to numbers only", () => {
    expect(ev("-input.count")).toBe(-3);
    expect(evText("-input.big")).toBe("-12345678901234567890");
    expect(ev("+input.count")).toBe(3);
    expect(runtimeError("-input.name").reason).toBe('unary "-" expects a number, got the string "Ada" at 0');
    expect(runtimeError("+'1'").reason).toContain('unary "+" expects a number');
  });
});

describe("evaluate: + and comparison", () => {
  it("adds numbers or concatenates two strings", () => {
    expect(ev("input.count + 1")).toBe(4);
    expect(ev("input.name + '!'")).toBe("Ada!");
  });

  it("refuses + on anything else", () => {
    expect(runtimeError("input.name + 1").reason).toBe(
      '"+" adds two numbers or concatenates two strings, got the string "Ada" and the number 1 at 11',
    );
    expect(runtimeError("input.nothing + 1").reason).toContain("got null and the number 1");
    expect(runtimeError("[1] + [2]").reason).toContain("got an array and an array");
  });

  it("orders numbers by value and strings by code unit", () => {
    expect(ev("2 < 10")).toBe(true);
    expect(ev("'2' < '10'")).toBe(false);
    expect(ev("input.big > 12345678901234567889")).toBe(true);
    expect(ev("0.3 <= 0.1 + 0.2")).toBe(true);
    expect(ev("3 >= 3.0")).toBe(true);
    expect(ev("'a' < 'b'")).toBe(true);
  });

  it("refuses ordering across types or on null", () => {
    expect(runtimeError("1 < '2'").reason).toBe(
      '"<" compares two numbers or two strings, got the number 1 and the string "2" at 2',
    );
    expect(runtimeError("input.nothing >= 1").reason).toContain('">=" compares two numbers or two strings, got null');
  });

  it("compares deeply by value with == and !=", () => {
    expect(ev("input.items[0] == {qty: 2.0, id: 'a'}")).toBe(true);
    expect(ev("input.tags != ['x', 'y']")).toBe(false);
    expect(ev("null == input.missing")).toBe(true);
    expect(ev("1 == '1'")).toBe(false);
    expect(ev("true != false")).toBe(true);
  });
});

describe("evaluate: booleans, ?? and the conditional", () => {
  it("requires booleans for && || !", () => {
    expect(ev("input.flag && input.count > 1")).toBe(true);
    expect(ev("!input.flag || false")).toBe(false);
    expect(runtimeError("input.count && true").reason).toBe('"&&" expects booleans, got the number 3 on the left at 0');
    expect(runtimeError("true && 'x'").reason).toBe('"&&" expects booleans, got the string "x" on the right at 8');
    expect(runtimeError("!input.nothing").reason).toBe('"!" expects a boolean, got null at 0');
  });

  it("short-circuits && and || without evaluating the right side", () => {
    expect(ev("false && 1 / 0 == 1")).toBe(false);
    expect(ev("true || input.name + 1 == 2")).toBe(true);
    expect(ev("false && 'not boolean'"), "the right side is not even type-checked when skipped").toBe(false);
  });

  it("returns the right side of ?? only when the left is null", () => {
    expect(ev("input.missing ?? 'default'")).toBe("default");
    expect(ev("input.nothing ?? 0")).toBe(0);
    expect(ev("input.count ?? (1 / 0)"), "the right side is skipped when the left is not null").toBe(3);
    expect(ev("input.flag ?? true")).toBe(true);
    expect(ev("false ?? true"), "false is not null").toBe(false);
    expect(ev("input.a ?? input.b ?? 'c'")).toBe("c");
  });

  it("picks a branch of the conditional and evaluates only that branch", () => {
    expect(ev("input.count > 2 ? 'many' : 'few'")).toBe("many");
    expect(ev("input.flag ? 1 : 1 / 0")).toBe(1);
    expect(runtimeError("input.count ? 1 : 2").reason).toBe(
      'the condition of "? :" must be a boolean, got the number 3 at 0',
    );
  });
});

describe("evaluate: map", () => {
  it("maps elements with a one-parameter lambda", () => {
    expect(ev("map(input.items, x => x.qty * 2)")).toEqual([4, 10]);
  });

  it("passes the index as the second parameter", () => {
    expect(ev("map(input.tags, (t, i) => {tag: t, at: i})")).toEqual([
      { tag: "x", at: 0 },
      { tag: "y", at: 1 },
    ]);
  });

  it("lets lambda parameters shadow roots inside the body only", () => {
    expect(ev("map(input.tags, input => input)")).toEqual(["x", "y"]);
    expect(ev("[map([1], input => input), input.name]")).toEqual([[1], "Ada"]);
  });

  it("nests lambdas with access to outer parameters", () => {
    expect(ev("map([1, 2], a => map([10, 20], b => a * b))")).toEqual([
      [10, 20],
      [20, 40],
    ]);
  });

  it("gives null over null and an empty array over an empty array", () => {
    expect(ev("map(input.missing, x => x)")).toBeNull();
    expect(ev("map([], x => 1 / 0)")).toEqual([]);
  });

  it("fails over a non-array, pointing at the list", () => {
    expect(runtimeError("map(input.name, x => x)").reason).toBe('map() expects an array, got the string "Ada" at 4');
  });

  it("reports errors inside the lambda body at their own position", () => {
    expect(runtimeError("map(input.items, x => x.id / 2)").position).toBe(27);
  });
});

describe("evaluate: runtime error details", () => {
  it("carries code engine.expression, the source and the position", () => {
    const error = runtimeError("1 + 'a'");
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe("engine.expression");
    expect(error.source).toBe("1 + 'a'");
    expect(error.position).toBe(2);
  });
});

describe("evaluate: edge cases", () => {
  it("builds an object literal with a __proto__ key as plain data", () => {
    const out = ev("{'__proto__': 1}") as { [k: string]: Json };
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toBe(1);
  });

  it("quotes the call when a builtin fails", () => {
    expect(runtimeError("1 + len(input.count)").message).toBe(
      "len() expects a string, an array or an object, got the number 3 at 4\n  1 + len(input.count)\n      ^",
    );
  });

  it("does not read roots from the scope's prototype", () => {
    expect(ev("toString", {})).toBeNull();
    expect(ev("hasOwnProperty", {})).toBeNull();
  });

  it("reads a root present as undefined as null", () => {
    expect(ev("input.x", { input: undefined })).toBeNull();
  });

  it("compares big integers beyond float precision exactly", () => {
    expect(ev("9007199254740993 == 9007199254740992"), "both round to the same float64").toBe(false);
    expect(ev("9007199254740993 > 9007199254740992")).toBe(true);
  });

  it("evaluates the same parsed expression against many scopes", () => {
    const expr = parseExpression("input.a * 2");
    expect([1, 2, 3].map((a) => evaluate(expr, { input: { a } }))).toEqual([2, 4, 6]);
  });
});
