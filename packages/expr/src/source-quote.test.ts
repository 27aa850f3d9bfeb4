import { describe, expect, it } from "vitest";
import { quoteSource, withQuote } from "./source-quote.js";

describe("quoteSource", () => {
  it("puts a caret under the position on a single line", () => {
    expect(quoteSource("input.a + )", 10)).toBe("  input.a + )\n            ^");
  });

  it("puts the caret just past the end for a position at the end of input", () => {
    expect(quoteSource("1 +", 3)).toBe("  1 +\n     ^");
  });

  it("quotes only the line holding the position in a multi-line source", () => {
    expect(quoteSource("a +\nb ! c", 6)).toBe("  b ! c\n    ^");
  });

  it("drops the carriage return of a CRLF line", () => {
    expect(quoteSource("a +\r\nb ! c", 7)).toBe("  b ! c\n    ^");
    expect(quoteSource("a ! b\r\nc", 2)).toBe("  a ! b\n    ^");
  });

  it("cuts long lines to a window that keeps the caret visible", () => {
    const source = `${"x".repeat(200)}!${"y".repeat(200)}`;
    const [line, caret] = quoteSource(source, 200).split("\n");
    expect(line.length, "the quote must stay readable in a terminal").toBeLessThan(90);
    expect(line[caret.indexOf("^")], "the caret must still point at the offending character").toBe("!");
  });

  it("clamps positions outside the source", () => {
    expect(quoteSource("ab", 99)).toBe("  ab\n    ^");
  });
});

describe("withQuote", () => {
  it("leaves the message alone when the position is unknown", () => {
    expect(withQuote("boom", undefined, undefined)).toBe("boom");
    expect(withQuote("boom", "x", undefined)).toBe("boom");
  });
});
