// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" in plain strings is the template syntax under test
import { describe, expect, it } from "vitest";
import type { TypeEnv } from "./check.js";
import { parseJson } from "./json.js";
import { compileShape } from "./shape.js";
import { checkShape } from "./shape-check.js";

const env: TypeEnv = {
  roots: {
    input: {
      type: "object",
      properties: {
        id: { type: "integer" },
        email: { type: ["string", "null"] },
        items: { type: "array", items: { $ref: "#/$defs/item" } },
      },
      required: ["id", "email", "items"],
    },
  },
  defs: { item: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] } },
};

describe("checkShape", () => {
  it("infers the JSON Schema of the evaluated shape", () => {
    const shape = compileShape(
      parseJson(`{
        "id": "$: input.id",
        "label": "order \${input.id}",
        "fixed": {"n": 1, "x": 1.5, "t": false, "z": null},
        "skus": "$: map(input.items, i => i.sku)",
        "pair": ["a", "$: input.id"],
        "empty": []
      }`),
    );
    const { type, problems } = checkShape(shape, env);
    expect(problems).toEqual([]);
    expect(type).toEqual({
      type: "object",
      properties: {
        id: { type: "integer" },
        label: { type: "string" },
        fixed: {
          type: "object",
          properties: { n: { type: "integer" }, x: { type: "number" }, t: { type: "boolean" }, z: { type: "null" } },
          required: ["n", "x", "t", "z"],
        },
        skus: { type: "array", items: { type: "string" } },
        pair: { type: "array", items: { type: ["string", "integer"] } },
        empty: { type: "array" },
      },
      required: ["id", "label", "fixed", "skus", "pair", "empty"],
    });
  });

  it("types a whole-shape $: leaf as its expression", () => {
    expect(checkShape(compileShape("$: input.items[0]"), env).type).toEqual({
      anyOf: [{ $ref: "#/$defs/item" }, { type: "null" }],
    });
  });

  it("reports problems with the path of their leaf", () => {
    const shape = compileShape(
      { user: { contact: "mail ${input.email}", ref: "$: input.nope" }, list: [1, "$: inpt"] },
      "body",
    );
    const { problems } = checkShape(shape, env);
    expect(problems.map((p) => [p.path, p.reason])).toEqual([
      [
        "body.user.contact",
        'interpolating input.email, which may be null (string or null), at 7, expected a value that is never null: add a default with ??, e.g. ${ input.email ?? "" }',
      ],
      [
        "body.user.ref",
        'unknown property "nope" of input at 9, expected one of its known properties: id, email, items',
      ],
      ["body.list[1]", 'unknown root "inpt" at 3, expected one of the available roots: input'],
    ]);
    expect(problems[1].message).toBe(`${problems[1].reason}\n  $: input.nope\n           ^`);
  });

  it("lets the inferred object type be read back by another expression's checker", () => {
    const { type } = checkShape(compileShape({ total: "$: input.id * 2" }), env);
    const next: TypeEnv = { roots: { outputs: { type: "object", properties: { calc: type }, required: ["calc"] } } };
    const shape = compileShape({ doubled: "$: outputs.calc.total", bad: "$: outputs.calc.totl" });
    const result = checkShape(shape, next);
    expect(result.problems.map((p) => p.path)).toEqual(["bad"]);
    expect(result.type).toMatchObject({ properties: { doubled: { type: "integer" } } });
  });
});
