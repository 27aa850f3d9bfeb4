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
});
