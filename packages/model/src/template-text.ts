// Reading template strings without evaluating them (LANGUAGE §3): "$: EXPR" is a typed
// value, "${ }" interpolates, "$$" escapes a dollar, anything else is literal.

export function isExpressionLeaf(text: string): boolean {
  return text.startsWith("$:");
}

/** The literal text a template stands for, or undefined when it contains an expression. */
export function literalText(text: string): string | undefined {
  if (isExpressionLeaf(text)) return undefined;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "$" && text[i + 1] === "$") {
      out += "$";
      i++;
    } else if (c === "$" && text[i + 1] === "{") return undefined;
    else out += c;
  }
  return out;
}

/** The literal text before the first `${`, for checking a URL's scheme when the rest is dynamic. */
export function literalPrefix(text: string): string {
  if (isExpressionLeaf(text)) return "";
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "$" && text[i + 1] === "$") {
      out += "$";
      i++;
    } else if (c === "$" && text[i + 1] === "{") return out;
    else out += c;
  }
  return out;
}
