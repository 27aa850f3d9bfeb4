// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" in plain strings is the template syntax under test
import { describe, expect, it } from "vitest";
import { ExprSyntaxError } from "./errors.js";
import { tokenize } from "./lexer.js";

const kinds = (source: string) => tokenize(source).map((t) => `${t.kind}:${t.value}`);

describe("tokenize", () => {
  it("splits names, numbers, strings and punctuation, ending with eof", () => {
    expect(kinds("input.a >= 1.5")).toEqual([
      "identifier:input",
      "punct:.",
      "identifier:a",
      "punct:>=",
      "number:1.5",
      "eof:",
    ]);
  });

  it("prefers the longest operator", () => {
    expect(kinds("a??b=>c!=d&&e||f<=g")).toEqual([
      "identifier:a",
      "punct:??",
      "identifier:b",
      "punct:=>",
      "identifier:c",
      "punct:!=",
      "identifier:d",
      "punct:&&",
      "identifier:e",
      "punct:||",
      "identifier:f",
      "punct:<=",
      "identifier:g",
      "eof:",
    ]);
  });

  it("keeps number text as written, including exponents", () => {
    expect(kinds("12 0.5 2e3 1.5E-2")).toEqual(["number:12", "number:0.5", "number:2e3", "number:1.5E-2", "eof:"]);
  });

  it("does not read a trailing dot as part of a number", () => {
    expect(kinds("a[0].b")).toEqual([
      "identifier:a",
      "punct:[",
      "number:0",
      "punct:]",
      "punct:.",
      "identifier:b",
      "eof:",
    ]);
  });

  it("decodes escapes in single- and double-quoted strings", () => {
    const [single, double] = tokenize(`'it\\'s\\n' "q\\"\\u00e9\\\\"`);
    expect(single.value).toBe("it's\n");
    expect(double.value).toBe('q"é\\');
  });

  it("records start and end offsets", () => {
    const [a, op, b] = tokenize("  ab  + 'x'");
    expect([a.start, a.end, op.start, op.end, b.start, b.end]).toEqual([2, 4, 6, 7, 8, 11]);
  });

  it("lexes a slice of a larger text with offsets into the whole text", () => {
    const tokens = tokenize("hi ${ name }", 5, 11);
    expect(tokens[0]).toMatchObject({ kind: "identifier", value: "name", start: 6, end: 10 });
    expect(tokens[1]).toMatchObject({ kind: "eof", start: 11 });
  });

  it.each([
    ["'abc", "unterminated string at 0"],
    ["'a\\qb'", 'unknown escape "\\q" at 2'],
    ["'\\u12'", "bad escape"],
    ["1e+", "expected digits after the exponent"],
    ["12abc", 'malformed number "12a"'],
    ["a = b", 'expected "==" for comparison'],
    ["a & b", 'expected "&&"'],
    ["a # b", 'unexpected character "#" at 2'],
  ])("rejects %j with a clear message", (source, fragment) => {
    expect(() => tokenize(source)).toThrow(ExprSyntaxError);
    expect(() => tokenize(source)).toThrow(fragment);
  });

  it("refuses a newline inside a string", () => {
    expect(() => tokenize("'a\nb'")).toThrow("unterminated string");
  });
});
