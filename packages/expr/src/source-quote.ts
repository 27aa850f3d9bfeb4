const WINDOW = 72;

/**
 * The source line holding `position` and a caret line under it, each indented by two spaces.
 * Long lines are cut to a window around the caret so the caret stays visible.
 */
export function quoteSource(source: string, position: number): string {
  const at = Math.max(0, Math.min(position, source.length));
  const lineStart = source.lastIndexOf("\n", at - 1) + 1;
  const newline = source.indexOf("\n", at);
  const lineEnd = newline === -1 ? source.length : newline;
  let line = source.slice(lineStart, lineEnd).replace(/\r$/, "");
  let column = at - lineStart;
  if (line.length > WINDOW) {
    const from = Math.max(0, Math.min(column - WINDOW / 2, line.length - WINDOW));
    const to = Math.min(line.length, from + WINDOW);
    const head = from > 0 ? "…" : "";
    line = head + line.slice(from, to) + (to < line.length ? "…" : "");
    column = column - from + head.length;
  }
  line = line.replace(/\t/g, " ");
  return `  ${line}\n  ${" ".repeat(column)}^`;
}

/** `message` followed by the quoted source when a position is known. */
export function withQuote(message: string, source: string | undefined, position: number | undefined): string {
  if (source === undefined || position === undefined) return message;
  return `${message}\n${quoteSource(source, position)}`;
}
