import { stringify } from "lossless-json";
import { describe, expect, it } from "vitest";
import { isLosslessNumber, MAX_JSON_DEPTH, parseJson, parseJsonFast, parseWrittenJson, stringifyJson } from "./json.js";

describe("lossless JSON", () => {
  it("keeps integers beyond 2^53 and long decimals exactly through a round trip", () => {
    const text = '{"big":12345678901234567890123,"dec":0.10000000000000000000001,"small":1.5}';
    const value = parseJson(text) as Record<string, unknown>;
    expect(isLosslessNumber(value.big), "a big integer must not be rounded to a float").toBe(true);
    expect(value.small).toBe(1.5);
    expect(stringifyJson(value)).toBe(text);
  });

  it("writes exactly lossless-json's text for plain values too (JSON.stringify's fast path)", () => {
    const proto = JSON.parse('{"__proto__": {"x": 1}, "a": [1, {"b": null}]}');
    const values: unknown[] = [
      null,
      true,
      0,
      -0,
      1e21,
      1.5e-7,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      "",
      'quote " backslash \\ newline \n tab \t nul \u0000 ctrl \u001f',
      "lone surrogate \ud800 and pair \ud83d\ude00, line separator \u2028",
      [],
      {},
      [1, undefined, () => 1, null],
      { a: undefined, f: () => 1, k: "v", "": 0, é: ["x"] },
      proto,
      { nested: { deep: [[[{ x: [1, 2, { y: "z" }] }]]] } },
      { when: new Date(0), big: 12n },
      parseJson('{"n": 12345678901234567890, "m": [0.10000000000000000000001]}'),
      new Number(5),
      new String("ab"),
    ];
    for (const value of values) expect(stringifyJson(value)).toBe(stringify(value as never));
    expect(() => stringifyJson(undefined)).toThrow("value is not representable as JSON");
  });
});

describe("parseWrittenJson", () => {
  it("gives exactly what parseJson gives, numbers JavaScript cannot hold included", () => {
    const texts = [
      '{"a":1,"b":[1.5,-0,1e3,0.1,"t12345678901234567890"],"c":{"__proto__":{"x":null}}}',
      '{"big":12345678901234567890123,"fine":0.1000000000000000055511151231257827}',
      '{"tiny":1e-400,"huge":1e400,"ok":123456789012345}',
      "[123456789012345.6, -9007199254740993, 9007199254740991]",
      '"12345678901234567890"',
    ];
    for (const text of texts) {
      const written = parseWrittenJson(text);
      expect(stringifyJson(written), text).toBe(stringifyJson(parseJson(text)));
      expect(written, text).toEqual(parseJson(text));
    }
    expect(isLosslessNumber((parseWrittenJson('{"n":12345678901234567890}') as { n: unknown }).n)).toBe(true);
    const own = parseWrittenJson('{"__proto__":{"x":1}}') as object;
    expect(Object.hasOwn(own, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(own)).toBe(Object.prototype);
  });
});

describe("parseJsonFast", () => {
  /** parseJson's value or its error message, as text, for comparing. */
  const outcome = (parse: (text: string) => unknown, text: string) => {
    try {
      return `value ${stringifyJson(parse(text))}`;
    } catch (error) {
      return `error ${(error as Error).message}`;
    }
  };

  it("gives exactly parseJson's value or error, on tricky text and on generated text", () => {
    const tricky = [
      '{"a":1,"a":2}',
      '{"a":1,"a":1}',
      '{"a":1,"\\u0061":2}',
      '{"a":{"b":1},"c":{"b":2}}',
      '{"s":"{\\"a\\":1,\\"a\\":2}","t":"[]{}:,"}',
      '{"big":12345678901234567890,"tiny":1e-400,"exp":1E5,"neg":-0,"f":0.1}',
      '{"__proto__":{"x":1},"constructor":2}',
      '{"__proto__":1,"__proto__":2}',
      "[1,2,",
      '{"a":1,}',
      "",
      "nul",
      `${"[".repeat(600)}${"]".repeat(600)}`,
      ' \n{ "k" :\t[ {"k":1} , {"k":2} ] } ',
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const keys = ["a", "b", "\\u0062", 'a\\"', "{", ":", "__proto__"];
    const generate = (depth: number): string => {
      const r = random();
      if (depth > 4 || r < 0.3)
        return [
          "1",
          "-2.5",
          "12345678901234567890",
          "1e400",
          "true",
          "null",
          '"x"',
          '"{\\"a\\":1}"',
          "0.1000000000000000055511151231257827",
        ][Math.floor(random() * 9)]!;
      if (r < 0.6) return `[${Array.from({ length: Math.floor(random() * 4) }, () => generate(depth + 1)).join(",")}]`;
      const n = Math.floor(random() * 4);
      const members = Array.from(
        { length: n },
        () => `"${keys[Math.floor(random() * keys.length)]}":${generate(depth + 1)}`,
      );
      return `{${members.join(",")}}`;
    };
    const texts = [...tricky, ...Array.from({ length: 2_000 }, () => generate(0))];
    for (const text of texts) {
      const expected = outcome(parseJson, text);
      expect(outcome(parseJsonFast, text), text).toBe(expected);
      // Written text never repeats a key: where parseJson accepts it, parseWrittenJson agrees.
      if (expected.startsWith("value")) expect(outcome(parseWrittenJson, text), text).toBe(expected);
    }
    expect(outcome(parseJsonFast, '{"a":1,"a":2}')).toMatch(/^error Duplicate key 'a'/);
  });

  it("keeps strings that look like its internal number markers as strings", () => {
    const text = '{"t":"\\u00001234567890abcdef1234","n":12345678901234567890}';
    const value = parseJsonFast(text) as Record<string, unknown>;
    expect(value.t).toBe("\u00001234567890abcdef1234");
    expect(isLosslessNumber(value.n)).toBe(true);
    expect(stringifyJson(value)).toBe(stringifyJson(parseJson(text)));
  });
});

describe("JSON nested past MAX_JSON_DEPTH (issue 12)", () => {
  it("is refused with the depth and the position, not the parser's stack overflow", () => {
    for (const [open, close] of [
      ["[", "]"],
      ['{"a":', "}"],
    ]) {
      const text = `${open.repeat(100_000)}1${close.repeat(100_000)}`;
      const where = open.length * MAX_JSON_DEPTH;
      for (const parse of [parseJson, parseJsonFast])
        expect(() => parse(text)).toThrow(`JSON nested more than 1000 levels deep at position ${where}`);
    }
  });

  it("reads nesting up to the bound, and brackets inside strings do not count", () => {
    const text = `${"[".repeat(MAX_JSON_DEPTH)}"[[[{{{\\"[["${"]".repeat(MAX_JSON_DEPTH)}`;
    let value = parseJson(text);
    for (let i = 0; i < MAX_JSON_DEPTH; i++) value = (value as unknown[])[0] as never;
    expect(value).toBe('[[[{{{"[[');
  });
});
