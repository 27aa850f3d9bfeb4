import { describe, expect, it } from "vitest";
import { ExprRuntimeError, ShapeError } from "./errors.js";
import { type Json, parseJson, stringifyJson } from "./json.js";
import { compileShape, evaluateShape } from "./shape.js";

const scope = {
  input: parseJson('{"id": 7, "items": [{"sku": "a"}, {"sku": "b"}], "big": 12345678901234567890}'),
  self: { result: { ok: true } },
};

function shapeError(shape: Json, path?: string): ShapeError {
  try {
    compileShape(shape, path);
  } catch (error) {
    if (error instanceof ShapeError) return error;
    throw error;
  }
  throw new Error("expected the shape to be rejected");
}

describe("compileShape and evaluateShape", () => {
  it("evaluates nested objects and arrays, templating only string leaves", () => {
    const shape = compileShape(
      parseJson(`{
        "order": "$: input.id",
        "label": "order-\${input.id}",
        "fixed": {"n": 1.5, "t": true, "z": null, "s": "plain"},
        "skus": "$: map(input.items, x => x.sku)",
        "list": ["$: input.items[0].sku", 2, ["$$literal"]]
      }`),
    );
    expect(evaluateShape(shape, scope)).toEqual({
      order: 7,
      label: "order-7",
      fixed: { n: 1.5, t: true, z: null, s: "plain" },
      skus: ["a", "b"],
      list: ["a", 2, ["$literal"]],
    });
  });

  it("lets any subtree be a single $: leaf", () => {
    expect(evaluateShape(compileShape("$: self.result"), scope)).toEqual({ ok: true });
    expect(evaluateShape(compileShape({ whole: "$: input" }), scope)).toEqual({ whole: scope.input });
  });

  it("keeps big numbers exact, both written in the shape and computed", () => {
    const shape = compileShape(parseJson('{"written": 98765432109876543210, "computed": "$: input.big + 1"}'));
    expect(stringifyJson(evaluateShape(shape, scope))).toBe(
      '{"written":98765432109876543210,"computed":12345678901234567891}',
    );
  });

  it("compiles once and evaluates against different scopes", () => {
    const shape = compileShape({ id: "$: input.id" });
    expect(evaluateShape(shape, { input: { id: 1 } })).toEqual({ id: 1 });
    expect(evaluateShape(shape, { input: { id: 2 } })).toEqual({ id: 2 });
  });

  it("records the path of every node", () => {
    const shape = compileShape({ a: [{ "b-c": "x" }] }, "body");
    expect(shape.kind === "object" && shape.entries[0][1].path).toBe("body.a");
    const inner = shape.kind === "object" && shape.entries[0][1].kind === "array" && shape.entries[0][1].items[0];
    expect(inner && inner.kind === "object" && inner.entries[0][1].path).toBe('body.a[0]["b-c"]');
  });

  it("keeps a __proto__ key as data", () => {
    const out = evaluateShape(compileShape(parseJson('{"__proto__": {"x": 1}}')), scope) as { [k: string]: Json };
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__"]);
  });
});

describe("shape errors", () => {
  it("names the path of the bad leaf and includes the syntax error with its caret", () => {
    const error = shapeError({ items: [1, 2, "$: input.id +"] }, "body");
    expect(error.path).toBe("body.items[2]");
    expect(error.message).toBe(
      "body.items[2]: unexpected end of input at 13, expected an expression\n  $: input.id +\n               ^",
    );
    expect(error.syntaxError.position).toBe(13);
  });

  it("uses bracket paths for keys that are not plain names", () => {
    expect(shapeError({ "X-Api-Key": "${ nope(" }, "headers").path).toBe('headers["X-Api-Key"]');
  });

  it("reports the root of an unnamed shape", () => {
    expect(shapeError("$: )").message.startsWith("(shape): ")).toBe(true);
  });

  it("adds the shape path to runtime errors", () => {
    const shape = compileShape({ total: "$: input.id / 0" }, "output");
    try {
      evaluateShape(shape, scope);
      throw new Error("expected a failure");
    } catch (error) {
      expect(error).toBeInstanceOf(ExprRuntimeError);
      expect((error as ExprRuntimeError).path).toBe("output.total");
      expect((error as ExprRuntimeError).message).toBe(
        "output.total: division by zero at 12\n  $: input.id / 0\n              ^",
      );
    }
  });
});
