import { stringify } from "lossless-json";
import { describe, expect, it } from "vitest";
import { isLosslessNumber, parseJson, parseWrittenJson, stringifyJson } from "./json.js";

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
