import { describe, expect, it } from "vitest";
import { storableJson, storableText } from "./text.js";

describe("storable text", () => {
  it("replaces NUL by U+FFFD and leaves other text alone", () => {
    expect(storableText("a\u0000b\u0000")).toBe("a\uFFFDb\uFFFD");
    expect(storableText("plain")).toBe("plain");
  });
  it("writes JSON without a \\u0000 escape, keeping a literal backslash-u0000 text as it is", () => {
    const text = storableJson({ message: "bad\u0000byte", state: '{"s":"\\u0000"}' });
    expect(text).not.toMatch(/(^|[^\\])(\\\\)*\\u0000/);
    expect(JSON.parse(text)).toEqual({ message: "bad\uFFFDbyte", state: '{"s":"\\u0000"}' });
  });
  it("replaces every NUL, in runs, after escaped backslashes and in keys", () => {
    const value = { "k\u0000": "\u0000\u0000", slash: "\\\u0000", pair: "\\\\\u0000", deep: [{ s: "x\u0000" }] };
    const text = storableJson(value);
    expect(text).not.toMatch(/(^|[^\\])(\\\\)*\\u0000/);
    expect(JSON.parse(text)).toEqual({
      "k\uFFFD": "\uFFFD\uFFFD",
      slash: "\\\uFFFD",
      pair: "\\\\\uFFFD",
      deep: [{ s: "x\uFFFD" }],
    });
  });
  it("replaces lone surrogates, which PostgreSQL's json refuses, keeping valid pairs and escaped text", () => {
    const value = { "k\ud800": "a\udfffb", pair: "\ud83d\ude00", high: "\ud800\ud800x", text: "\\ud800" };
    const text = storableJson(value);
    expect(text).not.toMatch(/(^|[^\\])(\\\\)*\\ud[89a-f]/);
    expect(JSON.parse(text)).toEqual({
      "k\uFFFD": "a\uFFFDb",
      pair: "\ud83d\ude00",
      high: "\uFFFD\uFFFDx",
      text: "\\ud800",
    });
  });
});
