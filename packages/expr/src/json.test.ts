import { stringify } from "lossless-json";
import { describe, expect, it } from "vitest";
import { isLosslessNumber, parseJson, stringifyJson } from "./json.js";

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
