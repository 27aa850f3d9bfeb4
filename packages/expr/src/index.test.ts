// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" in plain strings is the template syntax under test
import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("public API", () => {
  it("exports every name other packages code against", () => {
    const names = [
      "parseJson",
      "stringifyJson",
      "toPlainJson",
      "LosslessNumber",
      "isLosslessNumber",
      "parseExpression",
      "ExprSyntaxError",
      "parseTemplate",
      "compileShape",
      "evaluateShape",
      "ShapeError",
      "evaluate",
      "ExprRuntimeError",
      "checkExpression",
      "checkCondition",
      "checkTemplate",
      "checkShape",
      "BUILTINS",
      "NOW_KEY",
    ];
    for (const name of names) expect(api, name).toHaveProperty(name);
  });

  it("runs a definition-like round trip: compile, check, evaluate", () => {
    const env: api.TypeEnv = {
      roots: {
        input: {
          type: "object",
          properties: { qty: { type: "integer" }, unit: { type: "number" } },
          required: ["qty", "unit"],
        },
      },
    };
    const shape = api.compileShape(
      api.parseJson('{"total": "$: input.qty * input.unit", "text": "${input.qty} x ${input.unit}"}'),
      "output",
    );
    const checked = api.checkShape(shape, env);
    expect(checked.problems).toEqual([]);
    expect(checked.type).toEqual({
      type: "object",
      properties: { total: { type: "number" }, text: { type: "string" } },
      required: ["total", "text"],
    });
    const value = api.evaluateShape(shape, { input: api.parseJson('{"qty": 3, "unit": 0.1}') });
    expect(api.stringifyJson(value)).toBe('{"total":0.3,"text":"3 x 0.1"}');
  });
});
