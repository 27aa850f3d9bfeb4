// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" in plain strings is the template syntax under test
import { describe, expect, it } from "vitest";
import { ExprSyntaxError } from "./errors.js";
import { type Json, parseJson } from "./json.js";
import { evaluateTemplate, parseTemplate } from "./template.js";

const scope = {
  input: parseJson(
    '{"name": "Ada", "n": 0.1, "big": 12345678901234567890, "ok": true, "obj": {"a": [1]}, "none": null}',
  ),
};
const render = (text: string): Json => evaluateTemplate(parseTemplate(text), scope);

function syntaxError(text: string): ExprSyntaxError {
  try {
    parseTemplate(text);
  } catch (error) {
    if (error instanceof ExprSyntaxError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe("parseTemplate: modes", () => {
  it("reads '$: EXPR' as a typed expression", () => {
    const t = parseTemplate("$: input.n + 1");
    expect(t).toMatchObject({ kind: "expr", source: "input.n + 1", offset: 3 });
    expect(evaluateTemplate(t, scope)).toBe(1.1);
  });

  it("keeps the value's type for '$:', not a string", () => {
    expect(render("$: input.obj")).toEqual({ a: [1] });
    expect(render("$:input.ok")).toBe(true);
    expect(render("$: input.none")).toBeNull();
  });

  it("reads a string with ${ } as an interpolation", () => {
    const t = parseTemplate("Hello ${ input.name }!");
    expect(t.kind).toBe("interpolation");
    if (t.kind !== "interpolation") return;
    expect(t.parts).toHaveLength(3);
    expect(t.parts[1]).toMatchObject({ source: "input.name", offset: 9 });
    expect(evaluateTemplate(t, scope)).toBe("Hello Ada!");
  });

  it("reads anything else as a literal", () => {
    expect(parseTemplate("plain text")).toEqual({ kind: "literal", value: "plain text" });
    expect(parseTemplate("")).toEqual({ kind: "literal", value: "" });
    expect(parseTemplate("costs $5"), "a lone dollar is literal").toEqual({ kind: "literal", value: "costs $5" });
    expect(parseTemplate(" $: x"), "$: counts only at the very start").toEqual({ kind: "literal", value: " $: x" });
  });
});

describe("parseTemplate: $$ escapes a dollar", () => {
  it("turns $$ into $ in literals", () => {
    expect(parseTemplate("price: $$5")).toEqual({ kind: "literal", value: "price: $5" });
  });

  it("keeps $${ literal instead of interpolating", () => {
    expect(parseTemplate("$${ input.name }")).toEqual({ kind: "literal", value: "${ input.name }" });
  });

  it("keeps $$: literal instead of an expression", () => {
    expect(parseTemplate("$$: input.name")).toEqual({ kind: "literal", value: "$: input.name" });
  });

  it("mixes escapes with interpolation", () => {
    expect(render("$$${input.n} and ${input.name}$$")).toBe("$0.1 and Ada$");
  });
});

describe("interpolation rendering", () => {
  it("renders strings as is, numbers in canonical decimal, booleans, and objects/arrays as JSON", () => {
    expect(render("${input.name}|${input.n}|${input.big}|${input.ok}|${input.obj}|${input.obj.a}")).toBe(
      'Ada|0.1|12345678901234567890|true|{"a":[1]}|[1]',
    );
    expect(render("${0.1 + 0.2}")).toBe("0.3");
    expect(render("${1e21}")).toBe("1000000000000000000000");
  });

  it("renders null as null at run time", () => {
    expect(render("x=${input.none}")).toBe("x=null");
  });

  it("finds the closing brace past braces and quotes inside the expression", () => {
    expect(render("${ {a: '}'}.a }")).toBe("}");
    expect(render('${ "{" + "}" }')).toBe("{}");
    expect(render("${ {k: {v: 2}}.k.v }x")).toBe("2x");
  });
});

describe("parseTemplate: errors", () => {
  it("reports syntax errors at their position in the whole template", () => {
    const error = syntaxError("id=${ input.id + }");
    expect(error.position).toBe(17);
    expect(error.message).toBe(
      "unexpected end of input at 17, expected an expression\n  id=${ input.id + }\n                   ^",
    );
  });

  it("rejects an unterminated interpolation and says how to write a literal $", () => {
    expect(syntaxError("a ${ b").reason).toBe(
      'unterminated "${" at 2, expected "}" closing the interpolation (write "$$" for a literal "$")',
    );
  });

  it("rejects an empty interpolation or expression", () => {
    expect(syntaxError("a ${ } b").reason).toBe('empty interpolation at 2, expected an expression inside "${ }"');
    expect(syntaxError("$:   ").reason).toBe(
      'empty expression after "$:" at 5, expected an expression, e.g. "$: input.id"',
    );
  });

  it("reports positions after the $: prefix", () => {
    expect(syntaxError("$: 1 +* 2").position).toBe(6);
  });
});
