import type { OutputStream } from "./cli-io.js";

// Characters a terminal acts on instead of showing: C0 controls but newline and tab (ESC starts
// CSI/OSC sequences: a title change, a screen clear, an OSC 8 link, an OSC 52 clipboard write;
// CR rewrites the line), DEL, the C1 controls (U+009B is an 8-bit CSI, U+009D an OSC), and the
// bidirectional overrides and isolates that reorder what is shown.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// The CLI's own styles (style.ts): the only escape sequences it writes on purpose in text.
const OWN_STYLE = /(\x1b\[(?:1|2|22|31|32|33|36|39)m)/;

/**
 * `text` with every character a terminal would act on written as `\uXXXX`: what the server
 * sent is shown, never obeyed (docs/cli.md "Output"). The form is JSON's own escape, so JSON
 * output stays valid and means the same value.
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `text` escaped, keeping the CLI's own style sequences when `keepStyles` (a terminal with colors). */
export function terminalText(text: string, keepStyles: boolean): string {
  if (!keepStyles) return escapeControls(text);
  return text
    .split(OWN_STYLE)
    .map((part, i) => (i % 2 === 1 ? part : escapeControls(part)))
    .join("");
}

/**
 * The stream every command writes to: whatever it prints — the server's values, messages and
 * errors included — goes through terminalText. `writeControl` is for the progress line's own
 * erase sequence only.
 */
export function escapingStream(stream: OutputStream): OutputStream {
  return {
    write: (text) => stream.write(terminalText(text, stream.isTTY)),
    writeControl: (sequence) => stream.write(sequence),
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
  };
}
