// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation
import { describe, expect, it } from "vitest";
import { isExpressionLeaf, literalPrefix, literalText } from "./template-text.js";

describe("literalText", () => {
  it("returns the text of a literal, unescaping $$", () => {
    expect(literalText("https://x/a")).toBe("https://x/a");
    expect(literalText("costs $$5")).toBe("costs $5");
    expect(literalText("$${not}")).toBe("${not}");
  });

  it("is undefined when the template holds an expression", () => {
    expect(literalText("$: input.url")).toBeUndefined();
    expect(literalText("https://x/${input.id}")).toBeUndefined();
  });
});

describe("literalPrefix", () => {
  it("is the literal text before the first interpolation", () => {
    expect(literalPrefix("ftp://x/${input.id}")).toBe("ftp://x/");
    expect(literalPrefix("${input.url}")).toBe("");
    expect(literalPrefix("$: input.url")).toBe("");
  });
});

describe("isExpressionLeaf", () => {
  it("recognises $: leaves only at the start", () => {
    expect(isExpressionLeaf("$: x")).toBe(true);
    expect(isExpressionLeaf(" $: x")).toBe(false);
  });
});
