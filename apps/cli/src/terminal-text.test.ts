import { describe, expect, it } from "vitest";
import { escapeControls, escapingStream, terminalText } from "./terminal-text.js";

describe("escapeControls", () => {
  it("writes every character a terminal acts on as \\uXXXX, keeping newlines, tabs and other text", () => {
    expect(escapeControls("a\x1b]0;t\x07b\rc\u009b2J\u202ed\u0000\x7f")).toBe(
      "a\\u001b]0;t\\u0007b\\u000dc\\u009b2J\\u202ed\\u0000\\u007f",
    );
    expect(escapeControls("line 1\n\tline 2 é ⠋")).toBe("line 1\n\tline 2 é ⠋");
  });
});

describe("terminalText and escapingStream", () => {
  it("keep the CLI's own styles on a terminal only, and escape anything else", () => {
    const styled = "\x1b[1mID\x1b[22m \x1b[31mfailed\x1b[39m \x1b[8mhidden\x1b[0m";
    expect(terminalText(styled, true)).toBe("\x1b[1mID\x1b[22m \x1b[31mfailed\x1b[39m \\u001b[8mhidden\\u001b[0m");
    expect(terminalText(styled, false)).not.toContain("\x1b");
    let written = "";
    const stream = escapingStream({ write: (t) => void (written += t), isTTY: true, columns: 80 });
    stream.write("\x1b]52;c;eA==\x07");
    stream.writeControl!("\r\x1b[K");
    expect(written).toBe("\\u001b]52;c;eA==\\u0007\r\x1b[K");
    expect(stream.columns).toBe(80);
  });
});
