// Reading template strings without evaluating them (docs/language.md "Templates and shapes"): "$: EXPR" is a typed
// value, "${ }" interpolates, "$$" escapes a dollar, anything else is literal.

export function isExpressionLeaf(text: string): boolean {
  return text.startsWith("$:");
}

/** The literal text up to the first `${` (with `$$` unescaped), and whether that is all of it. */
function scanLiteral(text: string): { text: string; complete: boolean } {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "$" && text[i + 1] === "$") {
      out += "$";
      i++;
    } else if (c === "$" && text[i + 1] === "{") return { text: out, complete: false };
    else out += c;
  }
  return { text: out, complete: true };
}

/** The literal text a template stands for, or undefined when it contains an expression. */
export function literalText(text: string): string | undefined {
  if (isExpressionLeaf(text)) return undefined;
  const scanned = scanLiteral(text);
  return scanned.complete ? scanned.text : undefined;
}

/** The literal text before the first `${`, for checking a URL's scheme when the rest is dynamic. */
export function literalPrefix(text: string): string {
  if (isExpressionLeaf(text)) return "";
  return scanLiteral(text).text;
}
