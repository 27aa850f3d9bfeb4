import { describe, expect, it } from "vitest";
import { BUILTINS, NOW_KEY } from "./builtins.js";
import { ExprRuntimeError } from "./errors.js";
import { evaluate, type Scope } from "./evaluate.js";
import { type Json, parseJson } from "./json.js";
import { parseExpression } from "./parser.js";

const scope: Scope = {
  input: parseJson('{"s": "Grüße", "xs": [1, "a", {"k": 1}], "o": {"a": 1, "b": null}, "n": null}'),
};
const ev = (source: string, s: Scope = scope): Json => evaluate(parseExpression(source), s);
const fails = (source: string, s: Scope = scope) => {
  try {
    ev(source, s);
  } catch (error) {
    if (error instanceof ExprRuntimeError) return error.reason;
    throw error;
  }
  throw new Error(`expected ${source} to fail`);
};

describe("the builtin table", () => {
  it("holds exactly the documented functions, each with arity, typing rule and implementation", () => {
    expect(Object.keys(BUILTINS).sort()).toEqual(["contains", "join", "len", "lower", "now_ms", "upper"]);
    for (const [name, builtin] of Object.entries(BUILTINS)) {
      expect(typeof builtin.arity, name).toBe("number");
      expect(builtin.signature.startsWith(`${name}(`), name).toBe(true);
      expect(typeof builtin.type, name).toBe("function");
      expect(typeof builtin.call, name).toBe("function");
    }
  });
});

describe("len", () => {
  it("counts code points of strings, elements of arrays and keys of objects", () => {
    expect(ev("len(input.s)")).toBe(5);
    expect(ev("len('😀')"), "an emoji is one character, not two UTF-16 units").toBe(1);
    expect(ev("len(input.xs)")).toBe(3);
    expect(ev("len(input.o)")).toBe(2);
  });

  it("gives null for null and fails for numbers and booleans", () => {
    expect(ev("len(input.n)")).toBeNull();
    expect(fails("len(3)")).toBe("len() expects a string, an array or an object, got the number 3 at 0");
    expect(fails("len(true)")).toContain("got the boolean true");
  });
});

describe("lower and upper", () => {
  it("change case of strings and pass null through", () => {
    expect(ev("lower('AbC')")).toBe("abc");
    expect(ev("upper(input.s)")).toBe("GRÜSSE");
    expect(ev("lower(input.n)")).toBeNull();
    expect(fails("upper(1)")).toBe("upper() expects a string, got the number 1 at 0");
  });
});

describe("contains", () => {
  it("tests substrings, array elements by value and object keys", () => {
    expect(ev("contains(input.s, 'üß')")).toBe(true);
    expect(ev("contains(input.xs, {k: 1.0})"), "elements compare by value").toBe(true);
    expect(ev("contains(input.xs, 'b')")).toBe(false);
    expect(ev("contains(input.o, 'b')"), "a key with a null value is still a key").toBe(true);
    expect(ev("contains(input.o, 'toString')"), "inherited names are not keys").toBe(false);
  });

  it("gives null for a null subject and fails on a non-string needle for strings", () => {
    expect(ev("contains(input.n, 'a')")).toBeNull();
    expect(fails("contains('abc', 1)")).toContain("contains() expects a string as argument 2");
    expect(fails("contains(1, 1)")).toContain("contains() expects a string, an array or an object, got the number 1");
  });
});

describe("join", () => {
  it("renders elements like interpolation and joins them", () => {
    expect(ev("join(input.xs, ', ')")).toBe('1, a, {"k":1}');
    expect(ev("join([], '-')")).toBe("");
    expect(ev("join(map([1, 2], x => x * 0.1), '+')")).toBe("0.1+0.2");
  });

  it("gives null over null and fails on bad arguments", () => {
    expect(ev("join(input.n, ',')")).toBeNull();
    expect(fails("join('ab', ',')")).toContain("join() expects an array as argument 1");
    expect(fails("join([1], 2)")).toContain("join() expects a string separator");
  });
});

describe("now_ms", () => {
  it(`reads the service clock from the scope key ${NOW_KEY}, never the machine clock`, () => {
    const shifted = Date.now() + 86_400_000;
    expect(ev("now_ms()", { [NOW_KEY]: shifted })).toBe(shifted);
    expect(ev("now_ms() - 1000", { [NOW_KEY]: 5000 })).toBe(4000);
  });

  it("fails with a clear message when no clock is in the scope", () => {
    expect(fails("now_ms()", {})).toBe(
      `now_ms() has no clock: the scope must carry "${NOW_KEY}" (epoch milliseconds from the service clock) at 0`,
    );
  });

  it("is not readable as a root by expressions", () => {
    expect(() => parseExpression("$now")).toThrow('unexpected character "$"');
  });
});
