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
